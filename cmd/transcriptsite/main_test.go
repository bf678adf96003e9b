package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"transcriptsite":       main,
		"workflow-permissions": workflowPermissions,
	})
}

// TestScripts runs the CLI scripts in testdata/script: each runs commands
// and checks their output and the files they write.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}

// workflowPermissions prints the permissions a GitHub Actions workflow
// grants, at the top and in each job, one line each.
func workflowPermissions() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var wf struct {
		Permissions map[string]string
		Jobs        map[string]struct{ Permissions map[string]string }
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	show := func(p map[string]string) string {
		if len(p) == 0 {
			return "none"
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(p)) {
			out = append(out, k+": "+p[k])
		}
		return strings.Join(out, ", ")
	}
	fmt.Println("top:", show(wf.Permissions))
	for _, j := range slices.Sorted(maps.Keys(wf.Jobs)) {
		fmt.Printf("%s: %s\n", j, show(wf.Jobs[j].Permissions))
	}
}
