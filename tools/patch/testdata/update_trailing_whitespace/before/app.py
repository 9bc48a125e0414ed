import os

def greet():   
    print("hi")	
    return None  
