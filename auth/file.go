package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentcli/agent/internal/atomicfile"
	"github.com/agentcli/agent/internal/filelock"
)

// Login modes of auth.json ("auth_mode").
const (
	ModeAPIKey  = "apikey"
	ModeChatGPT = "chatgpt"
)

// FileName is the name of the credentials file inside the agent home.
const FileName = "auth.json"

// File is the content of $AGENT_HOME/auth.json, in the layout of Codex's
// auth.json, so either can be copied over the other.
type File struct {
	// AuthMode is ModeAPIKey or ModeChatGPT. When absent it is ModeAPIKey
	// if OpenAIAPIKey is set, else ModeChatGPT (see [File.Mode]).
	AuthMode string `json:"auth_mode,omitempty"`
	// OpenAIAPIKey is the API key of ModeAPIKey; it is written as null
	// when there is none, as Codex does.
	OpenAIAPIKey *string `json:"OPENAI_API_KEY"`
	// Tokens are the ChatGPT OAuth tokens of ModeChatGPT.
	Tokens *Tokens `json:"tokens,omitempty"`
	// LastRefresh is when the tokens were last obtained or refreshed.
	LastRefresh *time.Time `json:"last_refresh,omitempty"`
}

// Tokens are the OAuth tokens of a ChatGPT login.
type Tokens struct {
	IDToken      string `json:"id_token"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	AccountID    string `json:"account_id,omitempty"`
}

// Mode returns the effective login mode of f.
func (f *File) Mode() string {
	if f.AuthMode != "" {
		return f.AuthMode
	}
	if f.OpenAIAPIKey != nil && *f.OpenAIAPIKey != "" {
		return ModeAPIKey
	}
	return ModeChatGPT
}

// APIKey returns the API key of ModeAPIKey, or "".
func (f *File) APIKey() string {
	if f.OpenAIAPIKey == nil {
		return ""
	}
	return *f.OpenAIAPIKey
}

// AccountID returns the ChatGPT account (workspace) id: the stored one, or
// the one claimed by the id token.
func (f *File) AccountID() string {
	if f.Tokens == nil {
		return ""
	}
	if f.Tokens.AccountID != "" {
		return f.Tokens.AccountID
	}
	return parseClaims(f.Tokens.IDToken).AccountID
}

// Email returns the e-mail address claimed by the id token, or "".
func (f *File) Email() string {
	if f.Tokens == nil {
		return ""
	}
	return parseClaims(f.Tokens.IDToken).Email
}

// validate reports what makes f unusable, or nil.
func (f *File) validate() error {
	switch f.Mode() {
	case ModeAPIKey:
		if strings.TrimSpace(f.APIKey()) == "" {
			return errors.New(`auth_mode is "apikey" but OPENAI_API_KEY is empty`)
		}
	case ModeChatGPT:
		if f.Tokens == nil || f.Tokens.AccessToken == "" {
			return errors.New(`auth_mode is "chatgpt" but tokens.access_token is missing`)
		}
	default:
		return fmt.Errorf("unsupported auth_mode %q", f.AuthMode)
	}
	return nil
}

// clone returns a deep copy of f.
func (f *File) clone() *File {
	c := *f
	if f.OpenAIAPIKey != nil {
		k := *f.OpenAIAPIKey
		c.OpenAIAPIKey = &k
	}
	if f.Tokens != nil {
		t := *f.Tokens
		c.Tokens = &t
	}
	if f.LastRefresh != nil {
		t := *f.LastRefresh
		c.LastRefresh = &t
	}
	return &c
}

// ErrNotLoggedIn says there is no auth.json.
var ErrNotLoggedIn = errors.New("auth: not logged in")

// CorruptFileError says auth.json exists but cannot be used.
type CorruptFileError struct {
	Path string
	Err  error
}

func (e *CorruptFileError) Error() string {
	return fmt.Sprintf("auth: %s is unreadable (%v); run `agent logout`, then `agent login` again", e.Path, e.Err)
}

func (e *CorruptFileError) Unwrap() error { return e.Err }

// StoreOptions configure a [Store]. The zero value is usable.
type StoreOptions struct {
	// Sleep waits between attempts to take the lock; default a timer that
	// honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger gets a debug line when the lock is held by someone else;
	// default discards.
	Logger *slog.Logger
	// Notice gets a one-line message for the user when Load tightens an
	// auth.json that group or others could read; nil drops it.
	Notice func(msg string)
	// Keyring replaces the OS keyring of [OpenStore] (tests); nil is the
	// OS keyring.
	Keyring Keyring
	// WriteFile replaces auth.json's content atomically; nil is
	// [atomicfile.Write] (tests inject a full disk with an
	// [atomicfile.Writer]).
	WriteFile func(path string, data []byte, perm fs.FileMode) error
}

// Store reads and writes auth.json in one directory. Writes are atomic: a
// reader sees the old file or the new one, never a mix. Its methods are
// safe for concurrent use, also by several processes.
type Store struct {
	dir  string
	opts StoreOptions
	back backend // nil: auth.json in dir
}

// NewStore returns the store of $AGENT_HOME dir. opts may be nil.
func NewStore(dir string, opts *StoreOptions) *Store {
	s := &Store{dir: dir}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Sleep == nil {
		s.opts.Sleep = sleep
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.WriteFile == nil {
		s.opts.WriteFile = atomicfile.Write
	}
	return s
}

// Path returns the path of auth.json.
func (s *Store) Path() string { return filepath.Join(s.dir, FileName) }

// Location says where the store keeps the credentials, for messages: the
// path of auth.json, or the keyring entry, or memory.
func (s *Store) Location() string {
	if s.back != nil {
		return s.back.location()
	}
	return s.Path()
}

// Load reads auth.json. It returns [ErrNotLoggedIn] when there is none and
// a [*CorruptFileError] when it cannot be parsed or is incomplete.
//
// An auth.json that group or others may access is tightened to 0600 first,
// and [StoreOptions.Notice] told so.
func (s *Store) Load() (*File, error) {
	if s.back != nil {
		data, err := s.back.load()
		if err != nil {
			return nil, err
		}
		return decodeFile(data, s.back.location())
	}
	f, err := os.Open(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotLoggedIn
	}
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		if err := atomicfile.CheckLinks(s.Path(), fi); err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
	}
	if err := s.tighten(f); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return decodeFile(data, s.Path())
}

// tighten sets the open auth.json f to mode 0600 if group or others have
// any access to it.
func (s *Store) tighten(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	perm := st.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("auth: %s is accessible to others (mode %04o) and cannot be tightened: %w", s.Path(), perm, err)
	}
	if s.opts.Notice != nil {
		s.opts.Notice(fmt.Sprintf("%s was accessible to others (mode %04o); tightened it to 0600", s.Path(), perm))
	}
	return nil
}

// Save writes f to auth.json atomically: to a temporary file (mode 0600)
// in the same directory, synced, then renamed over auth.json. It creates
// the directory with mode 0700, and tightens an existing one to 0700.
func (s *Store) Save(f *File) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("auth: encode %s: %w", FileName, err)
	}
	if s.back != nil {
		if err := s.back.save(data); err != nil {
			return err
		}
		if _, ok := s.back.(keyringBackend); ok {
			// As Codex does: once in the keyring, no copy stays on disk.
			if _, err := s.removeFile(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.mkdir(); err != nil {
		return err
	}
	if err := s.opts.WriteFile(s.Path(), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("auth: write %s: %w", s.Path(), err)
	}
	return nil
}

// Remove deletes the saved credentials (auth.json, whatever it contains,
// or the keyring entry and any auth.json beside it). It reports whether
// there were any.
func (s *Store) Remove() (bool, error) {
	if s.back == nil {
		return s.removeFile()
	}
	had, err := s.back.remove()
	if _, ok := s.back.(keyringBackend); ok && err == nil {
		// A copy left on disk by the file store goes too.
		onDisk, ferr := s.removeFile()
		return had || onDisk, ferr
	}
	return had, err
}

// removeFile deletes auth.json and reports whether there was one.
func (s *Store) removeFile() (bool, error) {
	err := os.Remove(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("auth: %w", err)
	}
	return true, nil
}

// mkdir creates the directory with mode 0700, or tightens it to 0700.
func (s *Store) mkdir() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	st, err := os.Stat(s.dir)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(s.dir, 0o700); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	return nil
}

// lockMaxWait bounds the wait for auth.json.lock: its holder is another
// agent refreshing the tokens, for at most one call to the token endpoint.
// A lock held longer is held by something else, named in the error.
const lockMaxWait = tokenTimeout + filelock.DefaultMaxWait

// Lock takes the exclusive lock on auth.json.lock, shared by every agent
// process with the same home, waiting until it is free, ctx is done, or
// the lock has been held longer than a refresh takes (a
// [*filelock.HeldError] naming the holder). The caller must call the
// returned unlock exactly once.
func (s *Store) Lock(ctx context.Context) (unlock func(), err error) {
	if err := s.mkdir(); err != nil {
		return nil, err
	}
	path := s.Path() + ".lock"
	h, err := filelock.LockPath(ctx, path, filelock.Wait{Max: lockMaxWait, Sleep: s.opts.Sleep, Waiting: func(pid int) {
		s.opts.Logger.LogAttrs(ctx, slog.LevelDebug, "auth_lock_wait", slog.String("path", path), slog.Int("holder", pid))
	}})
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return func() { _ = h.Unlock() }, nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
