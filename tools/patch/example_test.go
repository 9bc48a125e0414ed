package patch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentcli/agent/tools/patch"
)

func Example() {
	root, err := os.MkdirTemp("", "patch-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	if err := os.WriteFile(filepath.Join(root, "greet.py"), []byte("def greet():\n    print(\"Hi\")\n"), 0o644); err != nil {
		panic(err)
	}

	p, err := patch.Parse(`*** Begin Patch
*** Update File: greet.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Add File: README.md
+# Greeter
*** End Patch`)
	if err != nil {
		fmt.Println(err) // a *patch.ParseError: tell the model
		return
	}
	res, err := patch.Apply(context.Background(), root, p, patch.Options{})
	if err != nil {
		fmt.Println(err) // nothing was changed: tell the model why
		return
	}
	fmt.Print(res)
	fmt.Print(res.Changes[0].Diff())
	// Output:
	// Success. Updated the following files:
	// A README.md
	// M greet.py
	// --- a/greet.py
	// +++ b/greet.py
	// @@ -1,2 +1,2 @@
	//  def greet():
	// -    print("Hi")
	// +    print("Hello, world!")
}
