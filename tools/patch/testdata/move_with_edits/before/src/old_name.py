def run():
    return "old"
