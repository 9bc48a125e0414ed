package modelclient

// NewWithWire is [New] speaking w whatever the provider's wire_api says:
// a wire of a test's own.
func NewWithWire(opts Options, w Wire) *Client { return newClient(opts, w, nil) }

// BodyParts is the body of p as a request sends it, in parts.
func (c *Client) BodyParts(p *Prompt, st Settings) ([][]byte, error) { return c.encodeParts(p, st, "") }
