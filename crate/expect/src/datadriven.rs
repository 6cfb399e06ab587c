//! A small reader and runner for datadriven test files, in the format of
//! cockroachdb/datadriven (which etcd-io/raft's `testdata/*.txt` use):
//!
//! ```text
//! # A comment: lines starting with `#`, and blank lines, between cases.
//! command positional key=value key=v1,v2
//! ----
//! the expected output, up to a blank line
//! ```
//!
//! An output that holds blank lines is written between `----`/`----` pairs:
//! `----`, `----`, the output, `----`, `----`. The runner calls a closure for each
//! command in order (state carries over between commands of one file), compares what it
//! returns with the expected block, and fails naming every block that differs, with a
//! diff; `UPDATE=1` rewrites the expected blocks in place, leaving the rest of the file.

use crate::{diff, updating};
use std::fmt::Write;
use std::path::Path;

/// One command of a file and its expected output.
pub struct Case {
    /// The file, for messages.
    pub file: String,
    /// The 1-based line of the command.
    pub line: usize,
    pub cmd: String,
    /// Words after the command: `key=value` pairs and bare words (key only, value empty).
    pub args: Vec<(String, String)>,
    expected: Vec<String>,
    /// Lines of the file the expected block occupies (`----` excluded), to rewrite.
    span: (usize, usize),
}

impl Case {
    /// Where this case is, for messages: `file:line: command`.
    pub fn at(&self) -> String {
        format!("{}:{}: {}", self.file, self.line, self.cmd)
    }

    /// The value of `key=value`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether `key` is given (bare, or with a value).
    pub fn has(&self, key: &str) -> bool {
        self.args.iter().any(|(k, _)| k == key)
    }

    /// The value of `key=value`, parsed.
    pub fn num<T: std::str::FromStr>(&self, key: &str) -> Option<T> {
        self.get(key).map(|v| v.parse().unwrap_or_else(|_| panic!("{}: {key}={v} is not a number", self.at())))
    }

    /// The value of `key=value`, parsed; the case fails without it.
    pub fn need<T: std::str::FromStr>(&self, key: &str) -> T {
        self.num(key).unwrap_or_else(|| panic!("{}: needs {key}=", self.at()))
    }

    /// A comma-separated list `key=a,b,c` (empty when absent or `key=`).
    pub fn list<T: std::str::FromStr>(&self, key: &str) -> Vec<T> {
        match self.get(key) {
            None | Some("") => Vec::new(),
            Some(v) => v
                .split(',')
                .map(|x| x.parse().unwrap_or_else(|_| panic!("{}: {key}={v}: {x} is not a number", self.at())))
                .collect(),
        }
    }

    /// The first bare word, parsed (`deliver 2`, `state 0`).
    pub fn first<T: std::str::FromStr>(&self) -> Option<T> {
        let (k, _) = self.args.iter().find(|(_, v)| v.is_empty())?;
        Some(k.parse().unwrap_or_else(|_| panic!("{}: {k} is not a number", self.at())))
    }
}

/// Reads the cases of a file's text.
fn parse(file: &str, text: &str) -> Vec<Case> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cases = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        let mut words = line.split_whitespace();
        let cmd = words.next().expect("not empty").to_string();
        let args = words
            .map(|w| match w.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (w.to_string(), String::new()),
            })
            .collect();
        let at = i + 1;
        i += 1;
        assert!(lines.get(i).map(|l| l.trim_end()) == Some("----"), "{file}:{at}: `{line}` is not followed by ----");
        i += 1;
        let start = i;
        let mut expected = Vec::new();
        if lines.get(i).map(|l| l.trim_end()) == Some("----") {
            // The blank-line-safe form: up to a `----` line followed by `----`.
            i += 1;
            loop {
                assert!(i + 1 < lines.len(), "{file}:{at}: no closing ----/---- pair");
                if lines[i].trim_end() == "----" && lines[i + 1].trim_end() == "----" {
                    break;
                }
                expected.push(lines[i].to_string());
                i += 1;
            }
            i += 2;
        } else {
            while i < lines.len() && !lines[i].trim().is_empty() {
                expected.push(lines[i].to_string());
                i += 1;
            }
        }
        cases.push(Case { file: file.to_string(), line: at, cmd, args, expected, span: (start, i) });
    }
    cases
}

/// The lines an output is written as in the file (the blank-line-safe form if needed).
fn written(output: &[String]) -> Vec<String> {
    if output.iter().any(|l| l.trim().is_empty()) {
        let mut w = vec!["----".to_string()];
        w.extend(output.iter().cloned());
        w.extend(["----".to_string(), "----".to_string()]);
        w
    } else {
        output.to_vec()
    }
}

/// Runs every command of the file at `path` through `run`, which returns the command's
/// output; fails listing each block that differs (or rewrites them with `UPDATE=1`).
pub fn run_file(path: &Path, mut run: impl FnMut(&Case) -> String) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let cases = parse(&name, &text);
    assert!(!cases.is_empty(), "{}: no commands", path.display());
    let mut failures = String::new();
    let mut outputs = Vec::new();
    for case in &cases {
        let output = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(case)));
        let output = output.unwrap_or_else(|panic| {
            eprintln!("{}:{}: `{}` panicked (the message is above)", path.display(), case.line, case.cmd);
            std::panic::resume_unwind(panic)
        });
        let got: Vec<String> = output.lines().map(|l| l.trim_end().to_string()).collect();
        if got != case.expected {
            let _ = writeln!(
                failures,
                "{}:{}: `{}` printed what its block (from line {}) does not say:\n{}",
                path.display(),
                case.line,
                case.cmd,
                case.span.0 + 1,
                diff(&case.expected, &got)
            );
        }
        outputs.push(got);
    }
    if updating() {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = Vec::new();
        let mut from = 0;
        for (case, got) in cases.iter().zip(&outputs) {
            out.extend(lines[from..case.span.0].iter().map(|l| l.to_string()));
            out.extend(written(got));
            from = case.span.1;
        }
        out.extend(lines[from..].iter().map(|l| l.to_string()));
        let mut text = out.join("\n");
        text.push('\n');
        std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    assert!(failures.is_empty(), "{failures}UPDATE=1 rewrites the expected blocks with what the code prints.");
}
