//! Expected-output files for the workspace's tests, one way for all of them: a golden
//! file, a generated section of a hand-written file (between two marker lines), and
//! datadriven scripts (in the style of etcd-io/raft's `testdata`, read by `datadriven`).
//! A mismatch fails with a small unified diff naming the first differing lines; `UPDATE=1`
//! rewrites the file with what the code produces instead (review it with `git diff`).

pub mod datadriven;

use std::path::Path;

/// `UPDATE=1` (or any value but `0` and empty): rewrite expected files instead of failing.
pub fn updating() -> bool {
    std::env::var("UPDATE").map(|v| !v.is_empty() && v != "0").unwrap_or(false)
}

/// Compares `got` with the golden file at `path` (one entry per line).
pub fn golden(path: &Path, got: &[String]) -> Result<(), String> {
    file(path, &got.iter().map(|l| format!("{l}\n")).collect::<String>())
}

/// Compares `got` with the whole file at `path`: the error names the first differing
/// lines. With `UPDATE=1` writes `got` there instead.
pub fn file(path: &Path, got: &str) -> Result<(), String> {
    if updating() {
        write(path, got);
        return Ok(());
    }
    let want = std::fs::read_to_string(path).unwrap_or_default();
    compared(&path.display().to_string(), &want, got)
}

/// Compares each `(start, end, got)` with what lies between the marker lines `start` and
/// `end` of the file at `path` (the rest of the file is hand-written): the error names the
/// section and its first differing lines. With `UPDATE=1` rewrites the sections instead.
pub fn sections(path: &Path, sections: &[(&str, &str, &str)]) -> Result<(), String> {
    let mut text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut errors = Vec::new();
    for (start, end, got) in sections {
        let (Some(a), Some(b)) = (text.find(start), text.find(end)) else {
            panic!("{} lacks the markers {start:?} and {end:?}", path.display());
        };
        let a = a + start.len();
        if let Err(e) = compared(&format!("{} (after {:?})", path.display(), start.trim()), &text[a..b], got) {
            errors.push(e);
        }
        text = format!("{}{got}{}", &text[..a], &text[b..]);
    }
    if updating() {
        write(path, &text);
        return Ok(());
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn compared(what: &str, want: &str, got: &str) -> Result<(), String> {
    if want == got {
        return Ok(());
    }
    let want: Vec<String> = want.lines().map(str::to_string).collect();
    let got: Vec<String> = got.lines().map(str::to_string).collect();
    Err(format!(
        "{what} differs from what the code produces ({} lines expected, {} produced; \
         UPDATE=1 rewrites it; - the file, + the code):\n{}",
        want.len(),
        got.len(),
        diff(&want, &got)
    ))
}

/// How many differing lines a diff shows before it stops.
const SHOWN: usize = 24;
/// Unchanged lines shown around each change.
const CONTEXT: usize = 2;

/// A unified-style diff of `want` (`-`) and `got` (`+`): the first few hunks, each headed
/// by the line numbers where it starts in both (`@@ -want +got @@`, counted from 1).
pub fn diff(want: &[String], got: &[String]) -> String {
    let ops = edit_script(want, got);
    let changed: Vec<usize> =
        ops.iter().enumerate().filter(|(_, o)| !matches!(o, Op::Same(..))).map(|(i, _)| i).collect();
    if changed.is_empty() {
        return "(no difference)\n".into();
    }
    // Hunks: runs of changes whose context overlaps.
    let mut out = String::new();
    let mut shown = 0;
    let mut k = 0;
    while k < changed.len() && shown < SHOWN {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 && shown < SHOWN {
            end = changed[k];
            k += 1;
            shown += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let (w, g) = ops[start].lines();
        out.push_str(&format!("@@ -{} +{} @@\n", w + 1, g + 1));
        for op in &ops[start..end] {
            match op {
                Op::Same(i, _) => out.push_str(&format!("  {}\n", want[*i])),
                Op::Removed(i, _) => out.push_str(&format!("- {}\n", want[*i])),
                Op::Added(_, j) => out.push_str(&format!("+ {}\n", got[*j])),
            }
        }
    }
    if k < changed.len() {
        out.push_str(&format!("... and {} more differing lines\n", changed.len() - k));
    }
    out
}

/// One step of an edit script; each holds its position in `want` and in `got`.
enum Op {
    Same(usize, usize),
    Removed(usize, usize),
    Added(usize, usize),
}

impl Op {
    fn lines(&self) -> (usize, usize) {
        match *self {
            Op::Same(i, j) | Op::Removed(i, j) | Op::Added(i, j) => (i, j),
        }
    }
}

/// A shortest edit script by longest common subsequence, over what lies between the
/// common head and tail (line by line when that middle is too big for the table).
fn edit_script(want: &[String], got: &[String]) -> Vec<Op> {
    let head = want.iter().zip(got).take_while(|(a, b)| a == b).count();
    let tail = want[head..].iter().rev().zip(got[head..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (a, b) = (&want[head..want.len() - tail], &got[head..got.len() - tail]);
    let mut ops: Vec<Op> = (0..head).map(|i| Op::Same(i, i)).collect();
    if a.len().saturating_mul(b.len()) > 16_000_000 {
        for i in 0..a.len().max(b.len()) {
            match (a.get(i), b.get(i)) {
                (Some(x), Some(y)) if x == y => ops.push(Op::Same(head + i, head + i)),
                (x, y) => {
                    if x.is_some() {
                        ops.push(Op::Removed(head + i, head + i.min(b.len())));
                    }
                    if y.is_some() {
                        ops.push(Op::Added(head + i.min(a.len()), head + i));
                    }
                }
            }
        }
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let w = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * w];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * w + j] = if a[i] == b[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                ops.push(Op::Same(head + i, head + j));
                (i, j) = (i + 1, j + 1);
            } else if i < a.len() && (j == b.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                ops.push(Op::Removed(head + i, head + j));
                i += 1;
            } else {
                ops.push(Op::Added(head + i, head + j));
                j += 1;
            }
        }
    }
    let (wt, gt) = (want.len() - tail, got.len() - tail);
    ops.extend((0..tail).map(|k| Op::Same(wt + k, gt + k)));
    ops
}
