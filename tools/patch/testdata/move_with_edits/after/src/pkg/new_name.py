def run():
    return "new"
