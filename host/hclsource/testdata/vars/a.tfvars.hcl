name  = "from-file"
port  = "8080"
hosts = ["a", "b"]
