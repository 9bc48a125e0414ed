package main

func main() {
	if ok {
		return 1
	}
}
