//! Terminal output from tool results (Bash commands, test runs, builds) as plain text: escape sequences
//! removed, and lines rewritten with carriage returns shown as a terminal would leave them.

use std::borrow::Cow;

/// The characters that make [`strip_ansi`] rewrite its input: ESC, the C1 controls that start a sequence,
/// carriage return, bell and backspace.
const SPECIAL_CHARS: [char; 10] =
    ['\x1b', '\r', '\x07', '\x08', '\u{9b}', '\u{9d}', '\u{90}', '\u{98}', '\u{9e}', '\u{9f}'];

/// Removes ANSI escape sequences and carriage-return overwrites from terminal output.
///
/// Removes control sequences (`ESC [ … final byte`, such as colors and cursor movements), control strings
/// (`ESC ] …` operating system commands such as titles and hyperlinks, and `ESC P`, `ESC X`, `ESC ^`,
/// `ESC _`, ended by BEL or `ESC \`; an unended one runs to the end of its line), other escape sequences
/// (`ESC 7`, `ESC (B`, …) and the 8-bit forms of these introducers.
///
/// Overwrites are resolved line by line: text after a carriage return replaces the line (so a line keeps
/// only the text after its last carriage return), a carriage return at the end of a line changes nothing,
/// "cursor to column 1" (`ESC [ G`) counts as a carriage return, "erase line" (`ESC [ K`, `ESC [ 2K`)
/// clears what the cursor would clear, and backspaces remove the character before them.
///
/// Returns the input unchanged, without copying, when there is nothing to remove.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains(SPECIAL_CHARS) {
        return Cow::Borrowed(text);
    }
    let mut screen = Screen::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(LINE_SPECIAL_CHARS) {
        screen.write(rest.get(..start).unwrap_or_default());
        let mut chars = rest.get(start..).unwrap_or_default().chars();
        let special = chars.next();
        let after = chars.as_str();
        rest = match special {
            Some('\x1b') => after_escape(after, &mut screen),
            Some('\u{9b}') => after_control_sequence(after, &mut screen),
            Some('\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}') => after_control_string(after),
            Some('\n') => {
                screen.new_line();
                after
            }
            Some('\r') => {
                screen.carriage_return();
                after
            }
            Some('\x08') => {
                screen.backspace();
                after
            }
            // A bell outside a control string.
            _ => after,
        };
    }
    screen.write(rest);
    Cow::Owned(screen.text)
}

/// The characters that [`strip_ansi`] handles one by one.
const LINE_SPECIAL_CHARS: [char; 11] =
    ['\x1b', '\r', '\n', '\x07', '\x08', '\u{9b}', '\u{9d}', '\u{90}', '\u{98}', '\u{9e}', '\u{9f}'];

/// The output, built as a terminal would show it, simplified: the cursor is at the end of the line, or
/// at its start after a carriage return.
struct Screen {
    text: String,
    /// Where the current line starts in `text`.
    line_start: usize,
    /// Whether a carriage return moved the cursor to the start of the line, so that the next character
    /// replaces the line.
    at_line_start: bool,
}

impl Screen {
    fn with_capacity(capacity: usize) -> Screen {
        Screen { text: String::with_capacity(capacity), line_start: 0, at_line_start: false }
    }

    fn write(&mut self, visible: &str) {
        if visible.is_empty() {
            return;
        }
        if self.at_line_start {
            self.clear_line();
        }
        self.text.push_str(visible);
    }

    fn new_line(&mut self) {
        self.text.push('\n');
        self.line_start = self.text.len();
        self.at_line_start = false;
    }

    fn carriage_return(&mut self) {
        self.at_line_start = true;
    }

    fn backspace(&mut self) {
        if !self.at_line_start && self.text.len() > self.line_start {
            self.text.pop();
        }
    }

    /// Erases from the cursor to the end of the line.
    fn erase_to_end_of_line(&mut self) {
        if self.at_line_start {
            self.clear_line();
        }
    }

    fn clear_line(&mut self) {
        self.text.truncate(self.line_start);
        self.at_line_start = false;
    }
}

/// Skips the escape sequence whose ESC was just read, returning the text after it.
fn after_escape<'a>(text: &'a str, screen: &mut Screen) -> &'a str {
    let mut chars = text.chars();
    match chars.next() {
        Some('[') => after_control_sequence(chars.as_str(), screen),
        Some(']' | 'P' | 'X' | '^' | '_') => after_control_string(chars.as_str()),
        // Intermediate bytes, then a final byte: `ESC ( B` selects a character set.
        Some('\x20'..='\x2f') => {
            let after_intermediates = chars.as_str().trim_start_matches(|ch| matches!(ch, '\x20'..='\x2f'));
            let mut rest = after_intermediates.chars();
            match rest.next() {
                Some('\x30'..='\x7e') => rest.as_str(),
                _ => after_intermediates,
            }
        }
        // A two-character escape such as `ESC 7`, `ESC =` or `ESC M`.
        Some('\x30'..='\x7e') => chars.as_str(),
        // A lone ESC: dropped, and what follows is kept (another ESC starts a new sequence).
        _ => text,
    }
}

/// Skips a control sequence (after `ESC [` or CSI), returning the text after it. Parameter and intermediate
/// bytes run up to a final byte; any other character ends the sequence and is kept. Applies "cursor to
/// column 1" and "erase in line" to the screen.
fn after_control_sequence<'a>(text: &'a str, screen: &mut Screen) -> &'a str {
    let after_parameters = text.trim_start_matches(|ch| matches!(ch, '\x20'..='\x3f'));
    let parameters = text.get(..text.len() - after_parameters.len()).unwrap_or_default();
    let mut chars = after_parameters.chars();
    match chars.next() {
        Some(final_byte @ '\x40'..='\x7e') => {
            match (final_byte, parameters) {
                ('G', "" | "0" | "1") => screen.carriage_return(),
                ('K', "" | "0") => screen.erase_to_end_of_line(),
                ('K', "1" | "2") => screen.clear_line(),
                _ => {}
            }
            chars.as_str()
        }
        _ => after_parameters,
    }
}

/// Skips a control string (an operating system command such as a title or a hyperlink target, or a device
/// control string), returning the text after its terminator: BEL, `ESC \` or ST. Without a terminator, the
/// string runs to the end of its line.
fn after_control_string(text: &str) -> &str {
    let terminator = text.char_indices().find_map(|(index, ch)| match ch {
        '\x07' | '\u{9c}' => Some(index + ch.len_utf8()),
        '\x1b' if text.get(index + 1..).is_some_and(|rest| rest.starts_with('\\')) => Some(index + 2),
        _ => None,
    });
    match terminator {
        Some(end) => text.get(end..).unwrap_or_default(),
        None => text.find('\n').and_then(|newline| text.get(newline..)).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        let text = "   Compiling serde v1.0.219\n    Finished `dev` profile in 3.2s\n";
        assert!(matches!(strip_ansi(text), Cow::Borrowed(borrowed) if borrowed == text));
        assert!(matches!(strip_ansi(""), Cow::Borrowed("")));
        assert!(matches!(strip_ansi("ünïcode 🦀 [not an escape]"), Cow::Borrowed(_)));
    }

    #[test]
    fn cargo_colored_output() {
        let text = "\x1b[1m\x1b[92m   Compiling\x1b[0m sessionscope v0.1.0 (/work/main)\n\
                    \x1b[0m\x1b[1m\x1b[91merror[E0308]\x1b[0m\x1b[0m\x1b[1m: mismatched types\x1b[0m\n\
                    \x1b[0m \x1b[0m\x1b[0m\x1b[1m\x1b[94m--> \x1b[0m\x1b[0msrc/main.rs:4:18\x1b[0m\n";
        assert_eq!(
            strip_ansi(text),
            "   Compiling sessionscope v0.1.0 (/work/main)\nerror[E0308]: mismatched types\n --> src/main.rs:4:18\n"
        );
    }

    #[test]
    fn cargo_progress_bar() {
        let text = "    Building [=====>                  ] 12/80: serde\r\x1b[K    Building [==========>             ] \
                    30/80: tokio\r\x1b[K   Compiling tokio v1.40.0\n    Finished `release` profile\n";
        assert_eq!(strip_ansi(text), "   Compiling tokio v1.40.0\n    Finished `release` profile\n");
    }

    #[test]
    fn npm_spinner_and_progress() {
        let text = "\x1b[?25l\x1b[1G\x1b[0K⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0K⠸\x1b[1G\x1b[0K\nadded 312 packages in 4s\n\
                    \x1b[1G\x1b[0K⠼\x1b[1G\x1b[0K\x1b[?25h";
        assert_eq!(strip_ansi(text), "\nadded 312 packages in 4s\n");
        let text = "(##########⠂⠂⠂⠂⠂⠂⠂⠂) ⠏ reify:typescript: timing\r(##################) ⠙ done\r\n";
        assert_eq!(strip_ansi(text), "(##################) ⠙ done\n");
    }

    #[test]
    fn pytest_and_extended_colors() {
        let text = "\x1b[32m\x1b[1m===== 12 passed in 0.45s =====\x1b[0m\n\
                    \x1b[38;5;208morange\x1b[39m \x1b[38;2;255;0;0mred\x1b[0m \x1b[48;2;0;0;0;1mbold on black\x1b[m";
        assert_eq!(strip_ansi(text), "===== 12 passed in 0.45s =====\norange red bold on black");
    }

    #[test]
    fn operating_system_commands() {
        assert_eq!(strip_ansi("\x1b]0;~/work: cargo test\x07running 3 tests"), "running 3 tests");
        assert_eq!(strip_ansi("see \x1b]8;;https://docs.rs/serde\x1b\\the docs\x1b]8;;\x1b\\ now"), "see the docs now");
        assert_eq!(strip_ansi("a\x1b]2;title\u{9c}b"), "ab");
        assert_eq!(strip_ansi("\x1bPq#0;2;0;0;0\x1b\\after"), "after");
        // Without a terminator the string ends with its line.
        assert_eq!(strip_ansi("before\x1b]0;unterminated title\nnext line"), "before\nnext line");
        assert_eq!(strip_ansi("\x1b]0;to the end"), "");
    }

    #[test]
    fn other_escape_sequences() {
        assert_eq!(strip_ansi("\x1b7saved\x1b8 \x1b=keypad\x1b> \x1bMup \x1bcreset"), "saved keypad up reset");
        assert_eq!(strip_ansi("\x1b(Bascii\x1b)0 \x1b#8done"), "ascii done");
        assert_eq!(strip_ansi("\x1b[?1049h\x1b[Hscreen\x1b[?1049l"), "screen");
        assert_eq!(strip_ansi("\u{9b}31mred\u{9b}0m"), "red");
        assert_eq!(strip_ansi("\u{9d}0;title\x07text"), "text");
    }

    #[test]
    fn malformed_sequences_keep_the_text() {
        assert_eq!(strip_ansi("end\x1b"), "end");
        assert_eq!(strip_ansi("a\x1b\x1b[31mb"), "ab");
        assert_eq!(strip_ansi("a\x1b[31"), "a");
        assert_eq!(strip_ansi("a\x1b[31\nb"), "a\nb");
        assert_eq!(strip_ansi("a\x1b[\u{e9}b"), "a\u{e9}b");
        assert_eq!(strip_ansi("a\x1b(\nb"), "a\nb");
        assert_eq!(strip_ansi("a\x1b\u{e9}b"), "a\u{e9}b");
        assert_eq!(strip_ansi("\x1b[\x1b[1m"), "");
        assert_eq!(strip_ansi("bell\x07!"), "bell!");
    }

    #[test]
    fn carriage_returns() {
        assert_eq!(strip_ansi("Downloading 10%\rDownloading 55%\rDownloading 100%\ndone"), "Downloading 100%\ndone");
        assert_eq!(strip_ansi("windows\r\nline endings\r\n"), "windows\nline endings\n");
        assert_eq!(strip_ansi("trailing\r\r\n"), "trailing\n");
        assert_eq!(strip_ansi("\rstarts with a return"), "starts with a return");
        assert_eq!(strip_ansi("only\r"), "only");
        assert_eq!(strip_ansi("\r\r\r"), "");
        assert_eq!(strip_ansi("old text\r\x1b[2Knew"), "new");
        assert_eq!(strip_ansi("old text\r\x1b[K\nnext"), "\nnext");
        assert_eq!(strip_ansi("old text\x1b[2K\nnext"), "\nnext");
        assert_eq!(strip_ansi("kept\x1b[K\n"), "kept\n");
    }

    #[test]
    fn cursor_to_column_one_is_a_carriage_return() {
        assert_eq!(strip_ansi("first\x1b[1Gsecond"), "second");
        assert_eq!(strip_ansi("first\x1b[Gsecond"), "second");
        assert_eq!(strip_ansi("first\x1b[10Gsecond"), "firstsecond");
    }

    #[test]
    fn backspaces() {
        assert_eq!(strip_ansi("N\x08NA\x08AM\x08ME\x08E"), "NAME");
        assert_eq!(strip_ansi("_\x08u_\x08l"), "ul");
        assert_eq!(strip_ansi("\x08\x08x\nab\x08\x08\x08c"), "x\nc");
        assert_eq!(strip_ansi("é\x08e"), "e");
    }

    #[test]
    fn unicode_is_preserved() {
        assert_eq!(strip_ansi("\x1b[1m✔\x1b[22m 日本語 🦀 done\r\n"), "✔ 日本語 🦀 done\n");
    }

    #[test]
    fn arbitrary_inputs_do_not_panic() {
        let pieces = [
            "\x1b", "[", "]", "\x07", "\\", "\r", "\n", "\x08", "1", ";", "m", "G", "é", "🦀", "\u{9b}", "\u{9c}",
            "\u{9d}", "(", "P", " ", "?",
        ];
        let mut state: u64 = 0xDEAD_BEEF_CAFE_F00D;
        for _ in 0..5000 {
            let mut text = String::new();
            for _ in 0..(state % 24) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            let stripped = strip_ansi(&text);
            assert!(!stripped.contains(['\x1b', '\r', '\x07', '\x08', '\u{9b}']), "{text:?} → {stripped:?}");
            // Stripping is idempotent.
            assert_eq!(strip_ansi(&stripped), stripped);
        }
    }
}
