import os

def greet():   
    print("hello")
    return None  
