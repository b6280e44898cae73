//! Turn validation reports into text: miette graphics, one JSON document,
//! GitHub workflow commands, or a SARIF log. Rendering is pure (returns strings); `printer`
//! writes them.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

use std::path::Path;

/// A path as shown to users: relative paths stay as given, `./` is dropped.
pub fn display_path(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map_or(s.clone(), str::to_owned)
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let t = "a = 1\né = \"x\"\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, t.find('=').unwrap()), (1, 3));
        let second_eq = t.rfind('=').unwrap();
        assert_eq!(line_col(t, second_eq), (2, 3));
    }
}
