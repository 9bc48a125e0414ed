// Checks shared by the scripts that drive agent acp (acp.mjs, editor.mjs)
// and codex-acp (codexacp.mjs).
import * as z from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

// check throws unless cond holds.
export function check(cond, msg) {
  if (!cond) throw new Error("check failed: " + msg);
}

// validate parses v with the SDK's schema of name; a mismatch throws with
// zod's account of it. The SDK's schemas forgive: a malformed optional
// field becomes undefined, a bad list element is skipped, an unknown key
// is dropped. So what the schema read must also hold v itself: any field
// it dropped or changed throws (the defaults it adds are its own). extra names the top-level keys
// of unstable ACP the schema does not know (the model state of older
// clients).
export function validate(name, v, extra = []) {
  const r = z[name].safeParse(v);
  if (!r.success) {
    throw new Error(`${name} does not validate: ${JSON.stringify(r.error.issues)}\n${JSON.stringify(v)}`);
  }
  const d = difference(v, r.data, name, extra);
  if (d) {
    throw new Error(`${name}: ${d}\n${JSON.stringify(v)}`);
  }
}

// difference names the first place where what the schema read (b) is not
// what was sent (a), or returns "".
function difference(a, b, path, extra = []) {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return `${path} has ${a.length} elements, the schema kept ${Array.isArray(b) ? b.length : "none"}`;
    for (let i = 0; i < a.length; i++) {
      const d = difference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return "";
  }
  if (a !== null && typeof a === "object") {
    if (b === null || typeof b !== "object") return `${path} is not read as an object`;
    for (const k of Object.keys(a)) {
      if (extra.includes(k)) continue;
      if (!(k in b) || b[k] === undefined) return `${path}.${k} is not in the schema (or not valid there)`;
      const d = difference(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return "";
  }
  return a === b ? "" : `${path} is ${JSON.stringify(a)}, read as ${JSON.stringify(b)}`;
}

