class Triangle:
    def area(self):
        return 0

class Square:
    def perimeter(self):
        return 0

    def area(self):
        return 0

class Circle:
    def area(self):
        return 0
