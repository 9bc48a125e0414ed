package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentcli/agent/headless"
	"github.com/agentcli/agent/headless/batch"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/exitcode"
)

// Defaults of the batch flags.
const (
	defaultBatchJobs            = 4
	defaultMaxConcurrentRetries = 3
)

// batchFlags are agent exec's batch flags.
type batchFlags struct {
	file       string
	jobs       int
	results    string
	maxRetries int
	shard      string
	fs         *pflag.FlagSet // to tell set flags from defaults
}

// addBatchFlags registers the batch flags of agent exec on fs.
func addBatchFlags(fs *pflag.FlagSet, f *batchFlags) {
	f.fs = fs
	fs.StringVar(&f.file, "batch", "", `run every prompt of FILE, one JSON object a line: {"id":…, "prompt":…, "cwd":…} (docs/exec-batch.md)`)
	fs.IntVar(&f.jobs, "jobs", defaultBatchJobs, "with --batch: prompts run at once")
	fs.StringVar(&f.results, "results", "", "with --batch: append results to FILE instead of stdout; prompts FILE records as completed are skipped")
	fs.IntVar(&f.maxRetries, "max-concurrent-retries", defaultMaxConcurrentRetries, "with --batch: retried requests in flight at once, across all jobs and every agent process of AGENT_HOME (default: [retry] max_concurrent_resends)")
	fs.StringVar(&f.shard, "shard", "", "with --batch: run only slice K of N (K/N; N alone takes K from JOB_COMPLETION_INDEX, 0-based)")
}

// maxResends is --max-concurrent-retries when given, else 0: the
// configured [retry] max_concurrent_resends.
func (f *batchFlags) maxResends() int {
	if f.fs != nil && f.fs.Changed("max-concurrent-retries") {
		return f.maxRetries
	}
	return 0
}

// requested reports whether any batch flag was given.
func (f *batchFlags) requested() bool {
	if f.file != "" {
		return true
	}
	for _, name := range []string{"jobs", "results", "max-concurrent-retries", "shard"} {
		if f.fs != nil && f.fs.Changed(name) {
			return true
		}
	}
	return false
}

// runBatch is agent exec --batch.
func runBatch(ctx context.Context, env Env, g *globalFlags, f *execFlags, args []string) error {
	bf := f.batch
	if err := checkBatchFlags(f, args); err != nil {
		return usageError(err)
	}
	items, err := batch.ReadFile(bf.file)
	if err != nil {
		return usageError(err)
	}
	if bf.shard != "" {
		sh, err := batch.ParseShard(bf.shard, env.Getenv)
		if err != nil {
			return usageError(err)
		}
		if items = sh.Filter(items); len(items) == 0 {
			fmt.Fprintf(env.Stderr, "agent: batch: slice %d/%d of %s holds no prompts\n", sh.K, sh.N, bf.file)
		}
	}
	schema, err := headless.ReadSchema(f.outputSchema)
	if err != nil {
		return usageError(err)
	}
	out := batch.NewSink(env.Stdout)
	todo := items
	if bf.results != "" {
		if out, todo, err = batch.Resume(bf.results, items, env.Stderr, env.Secrets); err != nil {
			return &exitcode.Error{Code: exitcode.Failed, Err: err}
		}
		defer out.Close()
	}
	opts, err := execAppOptions(env, g, f)
	if err != nil {
		return err
	}
	// One gate for every job, and with every agent process of this
	// AGENT_HOME: the provider's limits are the account's.
	opts.OutputSchema, opts.MaxResends = schema, bf.maxResends()
	progress := batch.NewProgress(env.Stderr, env.StderrTTY, len(todo), env.now)
	// One app for the whole batch: config, log, HTTP pool, auth manager,
	// MCP servers (and the demo server) are built once; each prompt gets a
	// session of its own (app.Open). An app that cannot be built
	// fails every prompt with its error.
	var a *app.App
	var appErr error
	if len(todo) > 0 {
		if a, appErr = app.New(ctx, opts); appErr == nil {
			defer a.Close()
			notices := map[string]bool{}
			for _, n := range a.Notices() {
				if !notices[n] {
					notices[n] = true // each distinct notice once
					progress.Println("agent: " + n)
				}
			}
		}
	}
	return batch.Run(ctx, todo, batch.Options{
		Jobs: bf.jobs, Results: out, Progress: progress, Skipped: len(items) - len(todo), Stderr: env.Stderr,
		Prompt: func(ctx context.Context, it batch.Item) batch.Result {
			if appErr != nil {
				return batch.Failed(ctx, it.ID, appErr)
			}
			sc, err := a.Open(ctx, app.Spec{Cwd: it.Dir})
			if err != nil {
				return batch.Failed(ctx, it.ID, err)
			}
			defer sc.Close()
			return batch.RunPrompt(ctx, sc.Session, sc.ID, it, progress)
		},
	})
}

// checkBatchFlags refuses the flags and arguments agent exec --batch
// cannot take.
func checkBatchFlags(f *execFlags, args []string) error {
	bf := f.batch
	switch {
	case bf.file == "":
		return errors.New("--jobs, --results, --max-concurrent-retries and --shard need --batch FILE")
	case len(args) > 0:
		return errors.New("--batch takes its prompts from FILE, not from an argument")
	case f.json || f.lastMessage != "":
		return errors.New("--batch writes JSON result lines already; drop --json and -o")
	case bf.jobs < 1:
		return fmt.Errorf("--jobs %d: want 1 or more", bf.jobs)
	case bf.maxRetries < 1:
		return fmt.Errorf("--max-concurrent-retries %d: want 1 or more", bf.maxRetries)
	}
	return nil
}

// newBatchCmd is `agent batch`, the commands about batch results.
func newBatchCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "batch",
		Short: "Work with the results of agent exec --batch",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBatchMergeCmd(env))
	return cmd
}

// newBatchMergeCmd is `agent batch merge`.
func newBatchMergeCmd(env Env) *cobra.Command {
	var file, out string
	cmd := &cobra.Command{
		Use:   "merge --batch FILE RESULTS...",
		Short: "Join the results files of a sharded batch and report the prompts without a completed result",
		Long: `Joins results files (of the --shard slices of one batch, or of re-runs) into one
results stream: for each id the completed result wins, else the last one seen.
With --batch FILE, every prompt of FILE without a completed result is listed on
stderr and the exit code is 1; the merged lines are written in FILE's order.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return batch.Merge(args, batch.MergeOptions{Batch: file, Output: out, Stdout: env.Stdout, Stderr: env.Stderr})
		},
	}
	cmd.Flags().StringVar(&file, "batch", "", "the batch file: report its prompts that have no completed result")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged results to FILE (atomically) instead of stdout")
	return cmd
}
