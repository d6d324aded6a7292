//! A long Markdown reply of the kind a model streams (headings, paragraphs
//! with emphasis and inline code, lists, fenced code in several languages,
//! quotes, pipe tables), cut into word-sized deltas, for the streaming
//! benches and the end-to-end checks (TUI-2).

/// A reply of about `bytes` bytes (never less).
pub fn markdown_reply(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 2048);
    let mut section = 0;
    while out.len() < bytes {
        section += 1;
        out.push_str(&section_text(section));
    }
    out.push_str("That is the whole plan: end of reply.\n");
    out
}

fn section_text(n: usize) -> String {
    let mut s = format!(
        "## Step {n}: tighten the parser\n\n\
         The failure in section {n} comes from **the parser** reading `input_{n}` before \
         the configuration is loaded, so the defaults win and the *override* is lost. \
         The fix moves the load earlier and passes the result down explicitly, which \
         keeps every other caller unchanged.\n\n\
         1. load the configuration in `main`\n\
         2. pass it to `Parser::new` explicitly\n\
         3. add a regression test for case {n}\n   \
         - with the override set\n   \
         - and without it\n\n"
    );
    match n % 3 {
        0 => s.push_str(&format!(
            "```rust\nfn parse_{n}(config: &Config, input: &str) -> Result<Ast> {{\n    \
             let tokens = lex(input)?;\n    // The override is read here, once.\n    \
             let mut parser = Parser::new(config);\n    parser.parse(&tokens)\n}}\n\n\
             #[test]\nfn override_{n}_wins() {{\n    assert_eq!(parse_{n}(&cfg(), \"x\").unwrap(), ast());\n}}\n```\n\n"
        )),
        1 => s.push_str(&format!(
            "```python\ndef check_{n}(path):\n    with open(path) as f:\n        \
             data = f.read()\n    return [line for line in data.splitlines() if line]\n```\n\n\
             > Note: the old behaviour is kept behind `--legacy-{n}` for one release.\n\n"
        )),
        _ => s.push_str(&format!(
            "| case | before | after |\n|------|--------|-------|\n\
             | {n}a | defaults | override |\n| {n}b | error | ok |\n\n"
        )),
    }
    s
}

/// `text` cut into word-sized deltas: each word with the whitespace after
/// it, as streaming servers send them.
pub fn word_deltas(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_space = false;
    for c in text.chars() {
        let space = c.is_whitespace();
        if in_space && !space {
            out.push(std::mem::take(&mut current));
        }
        in_space = space;
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}
