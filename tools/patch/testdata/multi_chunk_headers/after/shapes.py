class Triangle:
    def area(self):
        return 0

class Square:
    def perimeter(self):
        return 0

    def area(self):
        return self.side * self.side

class Circle:
    def area(self):
        return 3.14159 * self.r * self.r
