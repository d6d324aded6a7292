//! ASK-2: an option's `preview` is Markdown; HTML in it must be a fragment.
//!
//! A preview may not contain `<html>`, `<body>`, `<!DOCTYPE>`, `<script>` or
//! `<style>` tags (opening or closing, any case). Text inside a fenced code
//! block or an inline code span is shown as code, not rendered, so tags
//! there are allowed: a preview may well show an HTML file.

const TAGS: [(&str, &str); 4] = [
    ("html", "<html>"),
    ("body", "<body>"),
    ("script", "<script>"),
    ("style", "<style>"),
];

/// The first forbidden tag outside code, in its canonical spelling.
pub(super) fn forbidden_tag(preview: &str) -> Option<&'static str> {
    let mut fence: Option<(u8, usize)> = None;
    for line in preview.lines() {
        let marker = fence_marker(line);
        match (fence, marker) {
            (None, Some((c, n, _))) => {
                fence = Some((c, n));
                continue;
            }
            (Some((open_c, open_n)), Some((c, n, rest_blank)))
                if c == open_c && n >= open_n && rest_blank =>
            {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, None) => {}
        }
        if let Some(tag) = tag_in(&without_code_spans(line)) {
            return Some(tag);
        }
    }
    None
}

/// A code fence line: up to three spaces, then three or more backticks or
/// tildes. Returns the fence character, the run length, and whether only
/// whitespace follows the run.
fn fence_marker(line: &str) -> Option<(u8, usize, bool)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line.as_bytes()[indent..];
    let c = *rest.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.iter().take_while(|b| **b == c).count();
    if n < 3 {
        return None;
    }
    let rest_blank = rest[n..].iter().all(|b| b.is_ascii_whitespace());
    Some((c, n, rest_blank))
}

/// The line's bytes, lowercased, with inline code spans (a run of
/// backticks up to the next run of the same length) removed.
fn without_code_spans(line: &str) -> Vec<u8> {
    let bytes = line.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            out.push(bytes[i].to_ascii_lowercase());
            i += 1;
            continue;
        }
        let n = bytes[i..].iter().take_while(|b| **b == b'`').count();
        match closing_run(bytes, i + n, n) {
            Some(end) => {
                out.push(b' ');
                i = end;
            }
            None => {
                out.extend(std::iter::repeat_n(b'`', n));
                i += n;
            }
        }
    }
    out
}

/// The index just after the next run of exactly `n` backticks from `from`.
fn closing_run(bytes: &[u8], from: usize, n: usize) -> Option<usize> {
    let mut j = from;
    while j < bytes.len() {
        if bytes[j] == b'`' {
            let run = bytes[j..].iter().take_while(|b| **b == b'`').count();
            if run == n {
                return Some(j + run);
            }
            j += run;
        } else {
            j += 1;
        }
    }
    None
}

fn tag_in(lower: &[u8]) -> Option<&'static str> {
    for (i, b) in lower.iter().enumerate() {
        if *b != b'<' {
            continue;
        }
        let rest = &lower[i + 1..];
        if rest.starts_with(b"!doctype") {
            return Some("<!DOCTYPE>");
        }
        let name_start = rest.strip_prefix(b"/").unwrap_or(rest);
        for (name, canonical) in TAGS {
            if let Some(after) = name_start.strip_prefix(name.as_bytes()) {
                let ends = after
                    .first()
                    .is_none_or(|c| c.is_ascii_whitespace() || *c == b'>' || *c == b'/');
                if ends {
                    return Some(canonical);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::forbidden_tag;

    #[test]
    fn ask2_full_documents_and_scripts_are_found() {
        assert_eq!(forbidden_tag("<!doctype html>"), Some("<!DOCTYPE>"));
        assert_eq!(forbidden_tag("<HTML lang=en>"), Some("<html>"));
        assert_eq!(forbidden_tag("a\n</Body>"), Some("<body>"));
        assert_eq!(forbidden_tag("<script src=x>"), Some("<script>"));
        assert_eq!(forbidden_tag("<style>a{}</style>"), Some("<style>"));
        assert_eq!(forbidden_tag("<br/><script/>"), Some("<script>"));
    }

    #[test]
    fn ask2_fragments_and_code_are_fine() {
        assert_eq!(forbidden_tag("<div><b>bold</b></div>"), None);
        assert_eq!(forbidden_tag("<header>x</header> <bodyguard>"), None);
        assert_eq!(forbidden_tag("Use a `<script>` tag"), None);
        assert_eq!(forbidden_tag("``<style>`` here"), None);
        assert_eq!(
            forbidden_tag("```html\n<!DOCTYPE html>\n<html></html>\n```\nafter"),
            None
        );
        assert_eq!(forbidden_tag("~~~~\n<script>\n~~~\n<script>\n~~~~"), None);
        // An unclosed span is literal text; the tag after it counts.
        assert_eq!(forbidden_tag("a ` <script>"), Some("<script>"));
        // After a closed fence, tags count again.
        assert_eq!(forbidden_tag("```\ncode\n```\n<body>"), Some("<body>"));
    }
}
