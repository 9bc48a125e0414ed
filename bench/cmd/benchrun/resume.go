package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// resumeID is the session id of the big rollout the resume scenario
// writes (a version 7 UUID, as agent names its sessions).
const resumeID = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"

// resumeTurns is the big rollout's turns: four history items each
// (100,000 items), the shape of rollout/bench_test.go's rollout100k.
const resumeTurns = 25_000

// resumeReply is the fake server's answer in the big-session scenarios.
const resumeReply = "resumed"

// resumeResult is one big-session scenario's samples per client, the
// floor's (curl), and its targets.
type resumeResult struct {
	name    string
	floor   string // what curl did, "" when there is no floor
	size    int64  // the rollout's size, when the RSS target is in its multiples
	samples map[string][]sample
	curl    []sample
	rssMax  float64 // MiB; 0: no target
	cpuMax  float64 // ms
	wallMax float64 // ms
}

// resumeScenarios runs the big-session scenarios of issue 44 for every
// agent client (and the reference, where it can read the files):
// `exec resume ID hi` on a rollout of 100,000 history items, and with
// --sessions N, `exec resume --last hi` among N sessions whose index is
// deleted before each run.
func resumeScenarios(fakeBin, tmp string, o options, homes []string, clients []client, curl client, ref string) ([]resumeResult, error) {
	srv, err := startServer(fakeBin, "--reply", resumeReply)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	for _, h := range homes {
		if err := writeConfig(h, srv.URL, o.websocket); err != nil {
			return nil, err
		}
	}
	r, err := bigRolloutScenario(srv, o, homes, clients, curl)
	if err != nil {
		return nil, err
	}
	out := []resumeResult{*r}
	if o.sessions > 0 {
		var agents []client
		for _, c := range clients {
			if c.name != ref {
				agents = append(agents, c)
			}
		}
		r, err := manySessionsScenario(srv, tmp, o, agents)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, nil
}

// bigRolloutScenario runs `exec resume ID hi` on the big rollout written
// into every home (target: peak RSS at most 2.5× the file, at most 1 s of
// CPU), restoring the file after each run, and curl posting the same
// file to the fake server (reading it and sending it is the floor).
func bigRolloutScenario(srv *fakeServer, o options, homes []string, clients []client, curl client) (*resumeResult, error) {
	var files []string
	var size int64
	for _, h := range homes {
		path, n, err := writeBigRollout(h, clients[0].dir)
		if err != nil {
			return nil, err
		}
		files, size = append(files, path), n
	}
	cl := slices.Clone(clients)
	for i := range cl {
		cl[i].args = []string{"exec", "resume", resumeID, "hi"}
		if !strings.HasPrefix(cl[i].name, "agent") {
			cl[i].args = []string{"exec", "--skip-git-repo-check", "resume", resumeID, "hi"}
		}
	}
	curl.args = []string{"-sSfN", "-X", "POST", "-H", "Content-Type: application/json",
		"--data-binary", "@" + files[0], "-o", "/dev/null", srv.URL + "/responses"}
	r := &resumeResult{
		name:  fmt.Sprintf("exec resume of a %d-item rollout (%.1f MiB)", 4*resumeTurns, float64(size)/(1<<20)),
		floor: "curl posting the rollout file", size: size, samples: map[string][]sample{},
		rssMax: 2.5 * float64(size) / (1 << 20), cpuMax: 1000,
	}
	restore := func() error {
		for _, f := range files {
			if err := os.Truncate(f, size); err != nil {
				return err
			}
		}
		return nil
	}
	return r, measureResume(r, srv, o.runs, cl, &curl, restore)
}

// manySessionsScenario runs `exec resume --last hi` among o.sessions
// one-turn sessions in a home of their own, its sessions/index.jsonl
// deleted before each run (target: at most 10 s, index rebuilt).
func manySessionsScenario(srv *fakeServer, tmp string, o options, agents []client) (*resumeResult, error) {
	home := filepath.Join(tmp, "sessions-home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return nil, err
	}
	if err := writeConfig(home, srv.URL, o.websocket); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "benchrun: writing %d sessions\n", o.sessions)
	last, size, total, err := writeSessions(home, agents[0].dir, o.sessions)
	if err != nil {
		return nil, err
	}
	cl := slices.Clone(agents)
	for i := range cl {
		cl[i].args = []string{"exec", "resume", "--last", "hi"}
		cl[i].env = slices.Clone(cl[i].env)
		for j, e := range cl[i].env {
			if strings.HasPrefix(e, "AGENT_HOME=") || strings.HasPrefix(e, "HOME=") {
				cl[i].env[j] = e[:strings.IndexByte(e, '=')+1] + home
			}
		}
	}
	r := &resumeResult{
		name:    fmt.Sprintf("exec resume --last among %d sessions without an index (%.0f MB)", o.sessions, float64(total)/1e6),
		samples: map[string][]sample{}, wallMax: 10_000,
	}
	index := filepath.Join(home, "sessions", "index.jsonl")
	restore := func() error {
		if err := os.Remove(index); err != nil && !os.IsNotExist(err) {
			return err
		}
		return os.Truncate(last, size)
	}
	if err := restore(); err != nil {
		return nil, err
	}
	return r, measureResume(r, srv, o.runs, cl, nil, restore)
}

// measureResume runs each client (and curl, if set) runs times after a
// warm-up, interleaved, calling restore after each client run.
func measureResume(r *resumeResult, srv *fakeServer, runs int, clients []client, curl *client, restore func() error) error {
	fmt.Fprintf(os.Stderr, "benchrun: %s (%d runs per client)\n", r.name, runs)
	for i := -1; i < runs; i++ { // run -1 is the warm-up
		for _, c := range clients {
			s, err := runOnce(c, srv, resumeReply)
			if rerr := restore(); err == nil {
				err = rerr
			}
			if err != nil {
				return err
			}
			if i >= 0 {
				r.samples[c.name] = append(r.samples[c.name], s)
			}
		}
		if curl == nil {
			continue
		}
		s, err := runOnce(*curl, srv, "")
		if err != nil {
			return err
		}
		if i >= 0 {
			r.curl = append(r.curl, s)
		}
	}
	return nil
}

// writeBigRollout writes the resume scenario's rollout, of a session in
// cwd, into home's sessions: a session_meta line, then resumeTurns turns
// of a user message, a command call, its output and an answer, each turn
// with its started, user_message and completed events.
func writeBigRollout(home, cwd string) (path string, size int64, err error) {
	dir := filepath.Join(home, "sessions", "2024", "03", "09")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, err
	}
	path = filepath.Join(dir, "rollout-2024-03-09T14-05-06-"+resumeID+".jsonl")
	err = writeFileBuffered(path, &size, func(w *bufio.Writer) {
		writeMeta(w, resumeID, cwd, time.Date(2024, 3, 9, 14, 5, 6, 0, time.UTC), "be brief")
		for t := range resumeTurns {
			writeTurn(w, t)
		}
	})
	return path, size, err
}

// writeSessions writes n one-turn sessions of cwd into home's sessions,
// four minutes apart, and returns the last one's path and size and the
// size of them all.
func writeSessions(home, cwd string, n int) (last string, size, total int64, err error) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	instructions := strings.Repeat("Follow the repository's conventions. ", 40) // ~1.5 KB, as a real meta
	for i := range n {
		at := t0.Add(time.Duration(i) * 4 * time.Minute)
		id := fmt.Sprintf("%08x-%04x-7000-8000-%012x", at.Unix(), i&0xffff, i)
		dir := filepath.Join(home, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", 0, 0, err
		}
		last = filepath.Join(dir, "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		err := writeFileBuffered(last, &size, func(w *bufio.Writer) {
			writeMeta(w, id, cwd, at, instructions)
			writeTurn(w, i)
		})
		if err != nil {
			return "", 0, 0, err
		}
		total += size
	}
	return last, size, total, nil
}

// writeFileBuffered creates path, writes it through fill and sets *size.
func writeFileBuffered(path string, size *int64, fill func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	*size = st.Size()
	return f.Close()
}

// writeLine writes one rollout line of type typ.
func writeLine(w io.Writer, typ, payload string) {
	fmt.Fprintf(w, `{"timestamp":"2024-03-09T14:05:06.789Z","type":%q,"payload":%s}`+"\n", typ, payload)
}

func writeMeta(w io.Writer, id, cwd string, at time.Time, instructions string) {
	writeLine(w, "session_meta", fmt.Sprintf(`{"id":%q,"timestamp":%q,"cwd":%q,"originator":"agent_bench","cli_version":"0.0.0","model_provider":"fake","model":"test-model","instructions":%q}`,
		id, at.Format(time.RFC3339Nano), cwd, instructions))
}

// writeTurn writes turn t: its events and its four history items.
func writeTurn(w io.Writer, t int) {
	writeLine(w, "event_msg", `{"type":"turn_started"}`)
	writeLine(w, "event_msg", fmt.Sprintf(`{"type":"user_message","message":"please run step %d"}`, t))
	writeLine(w, "response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":"please run step %d of the plan and tell me what happened"}]}`, t))
	writeLine(w, "response_item", fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"exec_command","arguments":"{\"cmd\":\"ls -la src/step%d\"}","status":"completed"}`, t, t, t))
	writeLine(w, "response_item", fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"total 8\ndrwxr-xr-x 2 user user 4096 Dec  3 10:00 .\n-rw-r--r-- 1 user user  120 Dec  3 10:00 main.go\n"}`, t))
	writeLine(w, "response_item", fmt.Sprintf(`{"content":[{"annotations":[],"text":"Step %d ran: the directory holds main.go and nothing else, so the next step can start.","type":"output_text"}],"id":"msg_%d","role":"assistant","status":"completed","type":"message"}`, t, t))
	writeLine(w, "event_msg", `{"type":"turn_completed"}`)
}

// resumeReport writes the big-session table: each scenario's peak RSS,
// CPU and wall per client, the floor, and the targets of issue 44.
func resumeReport(w io.Writer, r *results) {
	if len(r.resume) == 0 {
		return
	}
	fmt.Fprintf(w, "\nBig sessions (issue 44): the rollout is restored (and the index deleted) after each run; "+
		"the floor is curl posting the rollout file to the fake server.\n\n")
	fmt.Fprintf(w, "| scenario | figure | %s | floor (curl) | target | result |\n|---|---|%s---|---|---|\n",
		strings.Join(r.clients, " | "), strings.Repeat("---|", len(r.clients)))
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for _, sc := range r.resume {
		figures := []struct {
			name, unit string
			get        func(sample) float64
			max        float64
		}{
			{"peak RSS", "MiB", func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) }, sc.rssMax},
			{"CPU user+sys", "ms", func(s sample) float64 { return ms(s.cpu()) }, sc.cpuMax},
			{"wall", "ms", func(s sample) float64 { return ms(s.wall) }, sc.wallMax},
		}
		for _, f := range figures {
			cells := []string{sc.name, f.name}
			for _, c := range r.clients {
				cells = append(cells, cell(sc.samples[c], f.get, f.unit))
			}
			res, tgt := "—", "—"
			if f.max > 0 {
				tgt = fmt.Sprintf("≤ %.1f %s", f.max, f.unit)
				if f.unit == "MiB" && sc.size > 0 {
					tgt = fmt.Sprintf("≤ 2.5× the file (%.1f MiB)", f.max)
				}
				res = verdict(median(sc.samples[r.clients[0]], f.get) <= f.max)
			}
			cells = append(cells, cell(sc.curl, f.get, f.unit), tgt, res)
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
}
