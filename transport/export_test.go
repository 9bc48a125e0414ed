package transport

// DecodeDeltaForTest exposes the fast path to the external tests.
func DecodeDeltaForTest(data []byte) (Event, bool) { return decodeDelta(string(data)) }

// DecodeSlowForTest runs Decode without the fast path.
func DecodeSlowForTest(data []byte) (Event, error) { return decodeGeneral("", data, false, nil) }

func LeadingIDForTest(item []byte) (string, bool) { return leadingID(item) }

// DecodeLargeForTest is decodeLarge at any size.
func DecodeLargeForTest(data string) (Event, bool, error) { return decodeLarge(data, nil) }

// DecodeItemFastForTest is the reflection-free item decoder: the item,
// the content part it cannot read, and whether it took the input.
func DecodeItemFastForTest(raw []byte) (Item, string, bool) { return decodeItemFast(raw) }

// DecodeItemJSONForTest is the item decoder by encoding/json.
func DecodeItemJSONForTest(raw []byte) (Item, string, error) { return decodeItemJSON(raw) }
