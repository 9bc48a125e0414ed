package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/zalando/go-keyring"
)

// Credential stores: where `agent login` keeps what it saves
// (cli_auth_credentials_store).
const (
	// StoreFile is $AGENT_HOME/auth.json, the default.
	StoreFile = "file"
	// StoreKeyring is the OS keyring (on Linux the D-Bus Secret Service);
	// where none is reachable it is an error.
	StoreKeyring = "keyring"
	// StoreAuto is the keyring when it is reachable, else the file.
	StoreAuto = "auto"
	// StoreEphemeral keeps credentials in the process's memory only.
	StoreEphemeral = "ephemeral"
)

// KeyringService is the keyring service name agent's credentials are
// saved under; the account is derived from the agent home, so each home
// has its own entry.
const KeyringService = "agent CLI auth"

// Keyring is the OS keyring as the store uses it: the API of
// github.com/zalando/go-keyring. Get of a missing entry returns
// [keyring.ErrNotFound].
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// osKeyring is the real OS keyring.
type osKeyring struct{}

func (osKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osKeyring) Set(service, user, secret string) error   { return keyring.Set(service, user, secret) }
func (osKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

// ErrKeyringUnavailable is the cause of the error of a keyring store
// where no keyring can be reached.
var ErrKeyringUnavailable = errors.New("no OS keyring is reachable")

// keyringAccount is the keyring account of the agent home dir: a digest
// of its absolute path, as Codex keys its entries by CODEX_HOME.
func keyringAccount(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	return "cli|" + hex.EncodeToString(sum[:8])
}

// backend is where a [Store] keeps the credentials.
type backend interface {
	load() ([]byte, error) // ErrNotLoggedIn when there are none
	save(data []byte) error
	remove() (bool, error)
	location() string
}

// keyringBackend keeps auth.json's content in one keyring entry.
type keyringBackend struct {
	kr      Keyring
	account string
}

func (b keyringBackend) load() ([]byte, error) {
	s, err := b.kr.Get(KeyringService, b.account)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, ErrNotLoggedIn
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrKeyringUnavailable, err)
	}
	return []byte(s), nil
}

func (b keyringBackend) save(data []byte) error {
	if err := b.kr.Set(KeyringService, b.account, string(data)); err != nil {
		return fmt.Errorf("auth: save to the keyring: %w (%v)", ErrKeyringUnavailable, err)
	}
	return nil
}

func (b keyringBackend) remove() (bool, error) {
	err := b.kr.Delete(KeyringService, b.account)
	if errors.Is(err, keyring.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("auth: remove from the keyring: %w (%v)", ErrKeyringUnavailable, err)
	}
	return true, nil
}

func (b keyringBackend) location() string {
	return fmt.Sprintf("the OS keyring (service %q, account %q)", KeyringService, b.account)
}

// failedBackend is a keyring store whose keyring cannot be reached.
type failedBackend struct {
	err error
	loc string
}

func (b failedBackend) load() ([]byte, error) { return nil, b.err }
func (b failedBackend) save([]byte) error     { return b.err }
func (b failedBackend) remove() (bool, error) { return false, b.err }
func (b failedBackend) location() string      { return b.loc }

// memoryBackend keeps the credentials in memory, for this process only.
type memoryBackend struct {
	mu   sync.Mutex
	data []byte
}

func (b *memoryBackend) load() ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.data == nil {
		return nil, ErrNotLoggedIn
	}
	return append([]byte(nil), b.data...), nil
}

func (b *memoryBackend) save(data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.data = append([]byte(nil), data...)
	return nil
}

func (b *memoryBackend) remove() (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	had := b.data != nil
	b.data = nil
	return had, nil
}

func (b *memoryBackend) location() string {
	return "memory only (cli_auth_credentials_store = ephemeral)"
}

// OpenStore returns the store of $AGENT_HOME dir for the credential store
// mode (StoreFile, StoreKeyring, StoreAuto, StoreEphemeral; "" is
// StoreFile). For the keyring modes it checks that the keyring answers:
// StoreKeyring fails with [ErrKeyringUnavailable] when it does not,
// StoreAuto falls back to the file and returns a one-line notice saying so.
// On that failure the store is still returned, and its Load, Save and
// Remove fail with the same error, never falling back to a file: a caller
// that may not need stored credentials (an API key in the environment)
// uses it and fails only when it reads them. opts may be nil; opts.Keyring
// nil means the OS keyring.
func OpenStore(dir, mode string, opts *StoreOptions) (s *Store, notice string, err error) {
	s = NewStore(dir, opts)
	kr := s.opts.Keyring
	if kr == nil {
		kr = osKeyring{}
	}
	switch mode {
	case "", StoreFile:
		return s, "", nil
	case StoreEphemeral:
		s.back = &memoryBackend{}
		return s, "", nil
	case StoreKeyring, StoreAuto:
		b := keyringBackend{kr: kr, account: keyringAccount(dir)}
		if _, perr := b.load(); perr != nil && !errors.Is(perr, ErrNotLoggedIn) {
			if mode == StoreKeyring {
				err := fmt.Errorf("cli_auth_credentials_store = \"keyring\": %w; set it to \"file\" or \"auto\" to use %s",
					perr, s.Path())
				s.back = failedBackend{err: err, loc: b.location()}
				return s, "", err
			}
			return s, fmt.Sprintf("cli_auth_credentials_store = \"auto\": no OS keyring is reachable; using %s", s.Path()), nil
		}
		s.back = b
		return s, "", nil
	}
	return nil, "", fmt.Errorf("auth: unknown credential store %q (want file, keyring, auto or ephemeral)", mode)
}

// decodeFile parses and validates the content of auth.json found at loc.
func decodeFile(data []byte, loc string) (*File, error) {
	var af File
	if err := json.Unmarshal(data, &af); err != nil {
		return nil, &CorruptFileError{Path: loc, Err: errors.New("not valid JSON")}
	}
	if err := af.validate(); err != nil {
		return nil, &CorruptFileError{Path: loc, Err: err}
	}
	return &af, nil
}
