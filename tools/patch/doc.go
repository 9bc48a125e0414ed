// Package patch is the engine of the apply_patch tool: it parses the
// "*** Begin Patch" format the model writes and applies it to a directory
// tree, all or nothing.
//
// Start with [Parse], then [Apply] (or [Preview] to see the changes without
// writing them). [FunctionSpec] and [FreeformSpec] are the tool specs sent to
// the model; [Instructions] is the text that teaches it the format.
//
// Invariants:
//   - Nothing is written until every hunk of every file has been applied in
//     memory. A patch that fails leaves the tree exactly as it was.
//   - Each file is replaced atomically (temp file in the same directory,
//     fsync, rename) and keeps its permission bits; a file with other hard
//     links is rewritten in place instead, so the links stay one file. A
//     file without any write permission bit is not rewritten: the patch
//     fails, naming it (even as root). If a write fails midway,
//     the files already written are restored from memory (best effort) and
//     the error says so.
//   - No path outside the root is read or written: ".." escapes, absolute
//     paths outside the root and symbolic links that resolve outside it are
//     refused, and every read and write goes through an [os.Root]. (A
//     caller that may write outside its workspace, as under
//     danger-full-access, applies the patch under the root "/": [Rooted].) An
//     Update through a symbolic link inside the root edits its target and
//     keeps the link; deleting or moving a link is refused.
//   - Add over an existing file replaces it and a move onto an existing
//     destination replaces that, as the reference does; Update and Delete
//     refuse a missing file. Later sections see the effect of earlier ones.
//   - Line endings are preserved: lines the patch adds take the file's
//     dominant ending (CRLF or LF); lines kept from the file keep theirs.
//   - A file without a final newline keeps it that way while its last line
//     stays last. Lines the patch adds always end with a newline, so a patch
//     that replaces the last line or appends after it leaves the file ending
//     in a newline.
//
// Matching follows the reference's seek_sequence: each chunk's context and
// removed lines are searched for after the previous chunk, exactly, then
// ignoring trailing whitespace, then ignoring surrounding whitespace, then
// folding typographic punctuation; "@@ text" headers move the search start
// past the line they name and "*** End of File" pins the chunk to the end.
// Where a match tolerated whitespace, the file's context lines are kept as
// they are, and added lines are re-indented like the file (see
// [Chunk]). A chunk with only added lines goes right after its "@@"
// header, or at the end of the file when it has none (and then later
// chunks are still looked for from where the previous one ended).
//
// testdata/codex-scenarios holds scenarios in the layout of the
// reference's own fixtures, with the trees the real Codex CLI 0.169 made of
// them; TestCodexScenarios checks that this package makes the same. The one
// deliberate difference there: a patch that fails midway leaves nothing
// (the reference keeps the files it wrote before the failure).
//
// The parser is lenient like the reference client (PARSE_IN_STRICT_MODE =
// false): whitespace around markers, CRLF input, a heredoc wrapper
// (apply_patch <<'EOF' ... EOF) or a Markdown code fence around the patch and
// a missing newline after "*** End Patch" are all accepted.
package patch
