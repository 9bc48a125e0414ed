def greet():
print("Hi")
