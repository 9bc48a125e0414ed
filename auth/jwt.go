package auth

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// claims are the parts of an OpenAI id or access token this package reads.
// Tokens are decoded without verifying their signature: the server that
// issued them verifies them; the client only needs the expiry and account.
type claims struct {
	Expires   time.Time // zero when the token has no exp
	Email     string
	AccountID string
	PlanType  string
}

// parseClaims decodes the payload of the JWT tok. A token that is not a
// JWT (an opaque token) yields zero claims.
func parseClaims(tok string) claims {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return claims{}
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return claims{}
	}
	var p struct {
		Exp   json.Number `json:"exp"`
		Email string      `json:"email"`
		Auth  struct {
			AccountID string `json:"chatgpt_account_id"`
			PlanType  string `json:"chatgpt_plan_type"`
		} `json:"https://api.openai.com/auth"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return claims{}
	}
	c := claims{Email: p.Email, AccountID: p.Auth.AccountID, PlanType: p.Auth.PlanType}
	if exp, err := p.Exp.Float64(); err == nil && exp > 0 {
		c.Expires = time.Unix(int64(exp), 0)
	}
	return c
}
