package rollout

import "github.com/google/uuid"

// NewID returns a new session or turn id (a UUIDv7: ids sort by time).
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
