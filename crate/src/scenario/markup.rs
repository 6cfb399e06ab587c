//! The caption markup: plain text with **bold**, *em* and `code`, nothing else. Never
//! HTML: [`check`] refuses tags, and [`caption_spans`] gives styled text runs that a UI
//! renders as text nodes (so no scenario text can inject markup).

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpanStyle {
    Plain,
    Bold,
    Em,
    Code,
}

/// A run of text in one style.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub style: SpanStyle,
    pub text: String,
}

/// Refuses raw HTML (a `<` that starts a tag, comment or declaration).
pub fn check(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'<' {
            if let Some(&c) = b.get(i + 1) {
                if c.is_ascii_alphabetic() || c == b'/' || c == b'!' || c == b'?' {
                    let end = text[i..].find('>').map(|e| i + e + 1).unwrap_or(b.len());
                    let tag: String = text[i..end].chars().take(30).collect();
                    return Err(format!(
                        "raw HTML is not allowed (found '{tag}'); captions take plain text with **bold**, *em* and `code`"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Splits a caption into styled runs. Unclosed markers stay literal text.
pub fn caption_spans(text: &str) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut push = |style: SpanStyle, s: &str| {
        if s.is_empty() {
            return;
        }
        if let Some(last) = out.last_mut() {
            if last.style == style {
                last.text.push_str(s);
                return;
            }
        }
        out.push(Span { style, text: s.to_string() });
    };
    let mut rest = text;
    while !rest.is_empty() {
        // The earliest marker that has a closing partner.
        let mut best: Option<(usize, &str, SpanStyle)> = None;
        for (marker, style) in [("`", SpanStyle::Code), ("**", SpanStyle::Bold), ("*", SpanStyle::Em)] {
            let mut from = 0;
            while let Some(p) = rest[from..].find(marker) {
                let start = from + p;
                let inner = start + marker.len();
                // `*` must not be half of `**`.
                let is_double = marker == "*" && rest[start..].starts_with("**");
                let closing = rest[inner..].find(marker).filter(|c| *c > 0);
                if !is_double && closing.is_some() {
                    if best.map(|(b, _, _)| start < b).unwrap_or(true) {
                        best = Some((start, marker, style));
                    }
                    break;
                }
                from = start + if is_double { 2 } else { marker.len() };
            }
        }
        match best {
            None => {
                push(SpanStyle::Plain, rest);
                break;
            }
            Some((start, marker, style)) => {
                push(SpanStyle::Plain, &rest[..start]);
                let inner = start + marker.len();
                let len = rest[inner..].find(marker).expect("closing found above");
                push(style, &rest[inner..inner + len]);
                rest = &rest[inner + len + marker.len()..];
            }
        }
    }
    out
}

/// The caption as plain text (markers removed), for text reports.
pub fn plain_text(text: &str) -> String {
    caption_spans(text).into_iter().map(|s| s.text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styles(t: &str) -> Vec<(SpanStyle, &'static str)> {
        caption_spans(t).into_iter().map(|s| (s.style, Box::leak(s.text.into_boxed_str()) as &str)).collect()
    }

    #[test]
    fn spans() {
        use SpanStyle::*;
        assert_eq!(
            styles("a **b** *c* `d*e` f"),
            vec![(Plain, "a "), (Bold, "b"), (Plain, " "), (Em, "c"), (Plain, " "), (Code, "d*e"), (Plain, " f")]
        );
        assert_eq!(styles("2 * 3 = 6"), vec![(Plain, "2 * 3 = 6")]);
        assert_eq!(styles("**open"), vec![(Plain, "**open")]);
        assert_eq!(styles("x < y"), vec![(Plain, "x < y")]);
    }

    #[test]
    fn html_is_refused() {
        assert!(check("a <b>bold</b>").is_err());
        assert!(check("<script>alert(1)</script>").is_err());
        assert!(check("<!-- c -->").is_err());
        assert!(check("HW < LEO and 1<2").is_ok());
    }
}
