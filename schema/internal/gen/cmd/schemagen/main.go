// Command schemagen writes schema/validate_gen.go from the embedded
// schemas; see package gen. `go generate ./schema` runs it.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/pierhq/pier/schema/internal/gen"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("schemagen: ")
	dir := flag.String("schemas", "schemas", "directory of the embedded schemas")
	out := flag.String("o", "validate_gen.go", "file to write")
	flag.Parse()
	src, err := gen.Generate(os.DirFS(*dir))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
