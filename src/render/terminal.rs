//! Terminal output from tool results (Bash commands, test runs, builds): escape sequences parsed into runs
//! of styled text (bold, dim, italic, underline, inverse, and colours from the 16, the 256-colour palette
//! or true colour), and lines rewritten with carriage returns shown as a terminal would leave them.
//!
//! The escape sequences are parsed by `anstyle-parse` (the vte state machine). Around it, a few rules
//! keep broken output readable: a sequence never spans a line break (an unended one stops at the end of
//! its line), a character that cannot belong to a control or escape sequence (a control character, or
//! anything outside ASCII) ends it and is shown, control strings (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`,
//! `ESC _`) also end at BEL, and the 8-bit forms of the introducers count as their `ESC` forms.

use std::borrow::Cow;

use anstyle_parse::{Params, ParamsIter, Parser, Perform};

/// The characters that make the output more than its plain text: ESC, the C1 controls that start a
/// sequence, carriage return, bell and backspace.
const SPECIAL_CHARS: [char; 10] =
    ['\x1b', '\r', '\x07', '\x08', '\u{9b}', '\u{9d}', '\u{90}', '\u{98}', '\u{9e}', '\u{9f}'];

/// The characters that plain text stops at: [`SPECIAL_CHARS`] and the line break.
const LINE_SPECIAL_CHARS: [char; 11] =
    ['\x1b', '\r', '\n', '\x07', '\x08', '\u{9b}', '\u{9d}', '\u{90}', '\u{98}', '\u{9e}', '\u{9f}'];

/// How a run of text looks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: bool,
    pub strikethrough: bool,
    /// Foreground and background swapped.
    pub inverse: bool,
    /// `None` for the default colour.
    pub foreground: Option<Color>,
    pub background: Option<Color>,
}

/// A colour of terminal output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// A colour of the 256-colour palette: 0 to 15 are the 16 named colours (black, red, green, yellow,
    /// blue, magenta, cyan, white, then their bright forms), whose shades each theme chooses; 16 to 231
    /// are a 6×6×6 colour cube and 232 to 255 a grey ramp.
    Indexed(u8),
    /// A true colour, red, green and blue.
    Rgb(u8, u8, u8),
}

/// A piece of output in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyledRun {
    pub text: String,
    pub style: Style,
}

/// Parses terminal output into runs of styled text, as a terminal would show it.
///
/// The text of the runs, put together, is [`strip_ansi`]'s. Consecutive runs differ in style; text in the
/// default style is a run too. Empty output gives no run.
pub fn styled_runs(text: &str) -> Vec<StyledRun> {
    if !text.contains(SPECIAL_CHARS) {
        let plain = (!text.is_empty()).then(|| StyledRun { text: text.to_owned(), style: Style::default() });
        return plain.into_iter().collect();
    }
    emulate(text).into_runs()
}

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
/// This is the text of [`styled_runs`]. Returns the input unchanged, without copying, when there is
/// nothing to remove.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains(SPECIAL_CHARS) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(emulate(text).screen.text)
}

/// A found text cut around its match: the text before it, the match, and after it, each with
/// terminal colours taken out ([`strip_ansi`]). `start` and `len` count chars, as search hits
/// give them; a match past the text's end is cut at it.
pub fn match_parts(text: &str, start: u32, len: u32) -> (String, String, String) {
    let chars: Vec<char> = text.chars().collect();
    let start = (start as usize).min(chars.len());
    let end = start.saturating_add(len as usize).min(chars.len());
    let part = |range: &[char]| {
        let text: String = range.iter().collect();
        strip_ansi(&text).into_owned()
    };
    let (before, rest) = chars.split_at(start);
    let (matched, after) = rest.split_at(end - start);
    (part(before), part(matched), part(after))
}

impl Style {
    /// Whether this is the default style, which needs no markup.
    pub fn is_plain(&self) -> bool {
        *self == Style::default()
    }

    /// The CSS classes that show this style: `ansi-bold`, `ansi-dim`, `ansi-italic`, `ansi-underline`,
    /// `ansi-strike`, `ansi-inverse`, and for colours:
    /// - on the theme's background, `ansi-fg-N` for the 16 named colours (whose shades the theme
    ///   chooses), and `ansi-fg-rgb` for the others (the colour in `--ansi-fg`, kept readable on the
    ///   theme's background);
    /// - on a background of its own, `ansi-bg-rgb` (the colour in `--ansi-bg`) with `ansi-fg-exact` (the
    ///   colour in `--ansi-fg`) or, for default text, `ansi-on-light` or `ansi-on-dark`: such text looks
    ///   as in a terminal, the same in both themes.
    pub fn classes(&self) -> String {
        let mut classes: Vec<String> = Vec::new();
        for (set, class) in [
            (self.bold, "ansi-bold"),
            (self.dim, "ansi-dim"),
            (self.italic, "ansi-italic"),
            (self.underline, "ansi-underline"),
            (self.strikethrough, "ansi-strike"),
            (self.inverse, "ansi-inverse"),
        ] {
            if set {
                classes.push(class.to_owned());
            }
        }
        match self.shown_colors() {
            (foreground, Some(background)) => {
                classes.push("ansi-bg-rgb".to_owned());
                let text = match foreground {
                    Some(_) => "ansi-fg-exact",
                    None if relative_luminance(background.rgb()) > 0.18 => "ansi-on-light",
                    None => "ansi-on-dark",
                };
                classes.push(text.to_owned());
            }
            (Some(Color::Indexed(index @ 0..=15)), None) => classes.push(format!("ansi-fg-{index}")),
            (Some(_), None) => classes.push("ansi-fg-rgb".to_owned()),
            (None, None) => {}
        }
        classes.join(" ")
    }

    /// The values of the CSS custom properties `--ansi-fg` and `--ansi-bg` for [`Style::classes`], each a
    /// `#rrggbb` made from parsed numbers (or the palette), when the classes use them.
    pub fn color_properties(&self) -> (Option<String>, Option<String>) {
        let hex = |color: Color| {
            let (red, green, blue) = color.rgb();
            format!("#{red:02x}{green:02x}{blue:02x}")
        };
        match self.shown_colors() {
            (foreground, Some(background)) => (foreground.map(hex), Some(hex(background))),
            (Some(Color::Indexed(0..=15)) | None, None) => (None, None),
            (Some(foreground), None) => (Some(hex(foreground)), None),
        }
    }

    /// The foreground and background as shown, swapped when inverse.
    fn shown_colors(&self) -> (Option<Color>, Option<Color>) {
        if self.inverse { (self.background, self.foreground) } else { (self.foreground, self.background) }
    }
}

impl Color {
    /// The red, green and blue of a colour: the 256-colour palette's for indices 16 to 255, xterm's
    /// defaults for the 16 named colours (which the page shows in its theme's shades instead).
    pub fn rgb(self) -> (u8, u8, u8) {
        const NAMED: [(u8, u8, u8); 16] = [
            (0, 0, 0),
            (205, 0, 0),
            (0, 205, 0),
            (205, 205, 0),
            (0, 0, 238),
            (205, 0, 205),
            (0, 205, 205),
            (229, 229, 229),
            (127, 127, 127),
            (255, 0, 0),
            (0, 255, 0),
            (255, 255, 0),
            (92, 92, 255),
            (255, 0, 255),
            (0, 255, 255),
            (255, 255, 255),
        ];
        const CUBE_LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
        match self {
            Color::Rgb(red, green, blue) => (red, green, blue),
            Color::Indexed(index @ 0..=15) => NAMED.get(usize::from(index)).copied().unwrap_or_default(),
            Color::Indexed(index @ 16..=231) => {
                let cube = usize::from(index - 16);
                let level = |step: usize| CUBE_LEVELS.get(step % 6).copied().unwrap_or_default();
                (level(cube / 36), level(cube / 6), level(cube))
            }
            Color::Indexed(index) => {
                let grey = 8 + 10 * (index - 232);
                (grey, grey, grey)
            }
        }
    }
}

/// The relative luminance of a colour (0 black to 1 white), as WCAG defines it.
fn relative_luminance((red, green, blue): (u8, u8, u8)) -> f32 {
    let linear = |channel: u8| {
        let value = f32::from(channel) / 255.0;
        if value <= 0.040_45 { value / 12.92 } else { ((value + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
}

/// Runs the whole output through the parser and the screen.
fn emulate(text: &str) -> Terminal {
    let mut terminal = Terminal::with_capacity(text.len());
    let mut parser = Parser::<anstyle_parse::DefaultCharAccumulator>::default();
    let mut rest = text;
    while !rest.is_empty() {
        if terminal.mode == Mode::Text {
            let end = rest.find(LINE_SPECIAL_CHARS).unwrap_or(rest.len());
            terminal.screen.write(rest.get(..end).unwrap_or_default(), terminal.style);
            rest = rest.get(end..).unwrap_or_default();
        }
        let mut chars = rest.chars();
        let Some(ch) = chars.next() else { break };
        rest = chars.as_str();
        terminal.take(ch, &mut parser);
    }
    terminal
}

/// What the characters being read are part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Text and control characters.
    Text,
    /// An escape sequence or a control sequence, from its ESC on.
    Sequence,
    /// A control string (an operating system command such as a title or a hyperlink, or a device
    /// control string), whose content is not shown.
    ControlString,
}

/// The state of the output being read: the screen, the current style, and what the parser is in.
struct Terminal {
    screen: Screen,
    style: Style,
    mode: Mode,
    /// Whether the last character given to the parser was ESC, so that the next one says what follows.
    after_escape: bool,
}

impl Terminal {
    fn with_capacity(capacity: usize) -> Terminal {
        Terminal {
            screen: Screen::with_capacity(capacity),
            style: Style::default(),
            mode: Mode::Text,
            after_escape: false,
        }
    }

    /// Takes one character that is not plain text, or any character inside a sequence.
    fn take(&mut self, ch: char, parser: &mut Parser) {
        match self.mode {
            Mode::Text => match ch {
                '\x1b' => self.feed_escape(parser),
                '\u{9b}' => self.feed_introducer(parser, b'['),
                '\u{9d}' => self.feed_introducer(parser, b']'),
                '\u{90}' => self.feed_introducer(parser, b'P'),
                '\u{98}' => self.feed_introducer(parser, b'X'),
                '\u{9e}' => self.feed_introducer(parser, b'^'),
                '\u{9f}' => self.feed_introducer(parser, b'_'),
                '\n' => self.screen.new_line(),
                '\r' => self.screen.carriage_return(),
                '\x08' => self.screen.backspace(),
                // A bell outside a control string.
                '\x07' => {}
                _ => {
                    let mut buffer = [0; 4];
                    self.screen.write(ch.encode_utf8(&mut buffer), self.style);
                }
            },
            Mode::Sequence => match ch {
                '\x1b' => self.feed_escape(parser),
                '\x20'..='\x7e' => {
                    let starts_string = self.after_escape && matches!(ch, ']' | 'P' | 'X' | '^' | '_');
                    self.feed(parser, ch as u8);
                    if starts_string {
                        self.mode = Mode::ControlString;
                    }
                }
                // Anything else ends the sequence unfinished, and is read as text.
                _ => {
                    self.abandon_sequence(parser);
                    self.take(ch, parser);
                }
            },
            Mode::ControlString => match ch {
                '\x1b' => self.feed_escape(parser),
                // BEL and ST end any control string: given as `ESC \`.
                '\x07' | '\u{9c}' => {
                    self.feed_escape(parser);
                    self.feed(parser, b'\\');
                }
                '\n' => {
                    self.abandon_sequence(parser);
                    self.take(ch, parser);
                }
                '\x20'..='\x7e' => self.feed(parser, ch as u8),
                // Other characters of the string are not shown, and mean nothing to the parser.
                _ => {}
            },
        }
    }

    fn feed(&mut self, parser: &mut Parser, byte: u8) {
        self.after_escape = false;
        parser.advance(self, byte);
    }

    fn feed_escape(&mut self, parser: &mut Parser) {
        parser.advance(self, 0x1b);
        self.mode = Mode::Sequence;
        self.after_escape = true;
    }

    /// Reads an 8-bit introducer as ESC and its 7-bit final character.
    fn feed_introducer(&mut self, parser: &mut Parser, byte: u8) {
        self.feed_escape(parser);
        self.take(char::from(byte), parser);
    }

    fn abandon_sequence(&mut self, parser: &mut Parser) {
        *parser = Parser::default();
        self.mode = Mode::Text;
        self.after_escape = false;
    }

    fn into_runs(self) -> Vec<StyledRun> {
        let Screen { text, styles, .. } = self.screen;
        let mut runs = Vec::with_capacity(styles.len());
        let mut starts = styles.iter().peekable();
        while let Some(&(start, style)) = starts.next() {
            let end = starts.peek().map_or(text.len(), |&&(next, _)| next);
            if let Some(piece) = text.get(start..end).filter(|piece| !piece.is_empty()) {
                runs.push(StyledRun { text: piece.to_owned(), style });
            }
        }
        runs
    }

    /// Applies "select graphic rendition" (`ESC [ … m`).
    fn select_graphic_rendition(&mut self, params: &Params) {
        let style = &mut self.style;
        let mut params = params.iter();
        while let Some(param) = params.next() {
            let code = param.first().copied().unwrap_or(0);
            match code {
                0 => *style = Style::default(),
                1 => style.bold = true,
                2 => style.dim = true,
                3 => style.italic = true,
                // `4:0` is "no underline"; `4:3` a curly one, and so on.
                4 => style.underline = param.get(1) != Some(&0),
                7 => style.inverse = true,
                9 => style.strikethrough = true,
                21 => style.underline = true,
                22 => {
                    style.bold = false;
                    style.dim = false;
                }
                23 => style.italic = false,
                24 => style.underline = false,
                27 => style.inverse = false,
                29 => style.strikethrough = false,
                30..=37 => style.foreground = named_color(code - 30),
                39 => style.foreground = None,
                40..=47 => style.background = named_color(code - 40),
                49 => style.background = None,
                90..=97 => style.foreground = named_color(code - 90 + 8),
                100..=107 => style.background = named_color(code - 100 + 8),
                38 => {
                    if let Some(color) = extended_color(param, &mut params) {
                        style.foreground = Some(color);
                    }
                }
                48 => {
                    if let Some(color) = extended_color(param, &mut params) {
                        style.background = Some(color);
                    }
                }
                // The underline colour is not shown, but its numbers must not be read as codes.
                58 => {
                    extended_color(param, &mut params);
                }
                _ => {}
            }
        }
    }
}

fn named_color(index: u16) -> Option<Color> {
    u8::try_from(index).ok().map(Color::Indexed)
}

/// Reads the colour after a 38, 48 or 58 code: `5;n` (the 256-colour palette) or `2;r;g;b` (true
/// colour), as more parameters, or as sub-parameters (`38:5:n`, `38:2:r:g:b`, `38:2::r:g:b` with a
/// colour space). `None` when the numbers are missing or out of range.
fn extended_color(param: &[u16], rest: &mut ParamsIter<'_>) -> Option<Color> {
    let byte = |value: Option<u16>| value.and_then(|value| u8::try_from(value).ok());
    if let Some((_, sub)) = param.split_first().filter(|(_, sub)| !sub.is_empty()) {
        return match sub.split_first() {
            Some((5, [index, ..])) => byte(Some(*index)).map(Color::Indexed),
            Some((2, [_, red, green, blue, ..])) | Some((2, [red, green, blue])) => {
                Some(Color::Rgb(byte(Some(*red))?, byte(Some(*green))?, byte(Some(*blue))?))
            }
            _ => None,
        };
    }
    let mut next = || rest.next().and_then(|param| param.first().copied());
    match next() {
        Some(5) => byte(next()).map(Color::Indexed),
        Some(2) => {
            let (red, green, blue) = (byte(next()), byte(next()), byte(next()));
            Some(Color::Rgb(red?, green?, blue?))
        }
        _ => None,
    }
}

impl Perform for Terminal {
    fn print(&mut self, ch: char) {
        // Only text outside sequences is printed; this is where a sequence the parser dropped ends.
        self.mode = Mode::Text;
        let mut buffer = [0; 4];
        self.screen.write(ch.encode_utf8(&mut buffer), self.style);
    }

    fn execute(&mut self, byte: u8) {
        self.mode = Mode::Text;
        match byte {
            b'\n' => self.screen.new_line(),
            b'\r' => self.screen.carriage_return(),
            0x08 => self.screen.backspace(),
            0x07 => {}
            _ => self.screen.write(char::from(byte).encode_utf8(&mut [0; 4]), self.style),
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: u8) {
        self.mode = Mode::Text;
        if ignore || !intermediates.is_empty() {
            return;
        }
        let single = if params.len() <= 1 { params.iter().next().and_then(|p| p.first().copied()) } else { None };
        match (action, single) {
            (b'm', _) => self.select_graphic_rendition(params),
            (b'G', Some(0 | 1)) => self.screen.carriage_return(),
            (b'K', Some(0)) => self.screen.erase_to_end_of_line(),
            (b'K', Some(1 | 2)) => self.screen.clear_line(),
            _ => {}
        }
    }

    fn esc_dispatch(&mut self, _intermediates: &[u8], _ignore: bool, _byte: u8) {
        self.mode = Mode::Text;
    }

    fn osc_dispatch(&mut self, _params: &[&[u8]], _bell_terminated: bool) {
        self.mode = Mode::Text;
    }

    fn unhook(&mut self) {
        self.mode = Mode::Text;
    }
}

/// The output, built as a terminal would show it, simplified: the cursor is at the end of the line, or
/// at its start after a carriage return.
struct Screen {
    text: String,
    /// Where each style starts in `text`, in order: each starts before the next and differs from it.
    styles: Vec<(usize, Style)>,
    /// Where the current line starts in `text`.
    line_start: usize,
    /// Whether a carriage return moved the cursor to the start of the line, so that the next character
    /// replaces the line.
    at_line_start: bool,
}

impl Screen {
    fn with_capacity(capacity: usize) -> Screen {
        Screen { text: String::with_capacity(capacity), styles: Vec::new(), line_start: 0, at_line_start: false }
    }

    fn write(&mut self, visible: &str, style: Style) {
        if visible.is_empty() {
            return;
        }
        if self.at_line_start {
            self.clear_line();
        }
        self.set_style(style);
        self.text.push_str(visible);
    }

    /// Makes `style` the style of the text written next.
    fn set_style(&mut self, style: Style) {
        // A style with no text yet is replaced.
        if self.styles.last().is_some_and(|&(start, _)| start == self.text.len()) {
            self.styles.pop();
        }
        if self.styles.last().map(|&(_, last)| last) != Some(style) {
            self.styles.push((self.text.len(), style));
        }
    }

    /// Ends the line. The line break belongs to the run before it, so that a style across lines stays
    /// one run.
    fn new_line(&mut self) {
        if self.styles.is_empty() {
            self.set_style(Style::default());
        }
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
            self.drop_empty_styles();
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
        self.drop_empty_styles();
        self.at_line_start = false;
    }

    /// Forgets the styles that start at or past the end of the text, which no text is left in.
    fn drop_empty_styles(&mut self) {
        let length = self.text.len();
        while self.styles.last().is_some_and(|&(start, _)| start >= length) {
            self.styles.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_is_cut_around_its_match_by_chars_without_colours() {
        let text = "déjà \x1b[31mkettle\x1b[0m boils";
        // "déjà " is five chars and seven bytes; the colour codes are chars too.
        let start = "déjà \x1b[31m".chars().count() as u32;
        assert_eq!(match_parts(text, start, 6), ("déjà ".to_owned(), "kettle".to_owned(), " boils".to_owned()));
        assert_eq!(match_parts("short", 3, 99), ("sho".to_owned(), "rt".to_owned(), String::new()));
        assert_eq!(match_parts("short", 99, 2), ("short".to_owned(), String::new(), String::new()));
        assert_eq!(match_parts("", 0, u32::MAX), (String::new(), String::new(), String::new()));
    }

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

    fn runs(text: &str) -> Vec<(String, Style)> {
        styled_runs(text).into_iter().map(|run| (run.text, run.style)).collect()
    }

    fn run(text: &str, style: Style) -> (String, Style) {
        (text.to_owned(), style)
    }

    fn foreground(color: Color) -> Style {
        Style { foreground: Some(color), ..Style::default() }
    }

    #[test]
    fn plain_output_is_one_plain_run() {
        assert_eq!(runs("no escapes here\n"), vec![run("no escapes here\n", Style::default())]);
        assert_eq!(runs(""), vec![]);
        assert!(Style::default().is_plain());
        assert_eq!(Style::default().classes(), "");
        assert_eq!(Style::default().color_properties(), (None, None));
    }

    #[test]
    fn bold_and_the_16_colours_until_reset() {
        let red_bold = Style { bold: true, foreground: Some(Color::Indexed(1)), ..Style::default() };
        assert_eq!(
            runs("\x1b[1;31mFAILED\x1b[0m tests::parse\n"),
            vec![run("FAILED", red_bold), run(" tests::parse\n", Style::default())]
        );
        assert_eq!(red_bold.classes(), "ansi-bold ansi-fg-1");
        // Bright colours are 8 to 15; 39 and 49 go back to the default colours.
        assert_eq!(
            runs("\x1b[92mok\x1b[39m \x1b[101mbad\x1b[49m."),
            vec![
                run("ok", foreground(Color::Indexed(10))),
                run(" ", Style::default()),
                run("bad", Style { background: Some(Color::Indexed(9)), ..Style::default() }),
                run(".", Style::default()),
            ]
        );
        // `ESC [ m` resets as `ESC [ 0 m` does.
        assert_eq!(runs("\x1b[33mwarn\x1b[m"), vec![run("warn", foreground(Color::Indexed(3)))]);
    }

    #[test]
    fn attributes_nest_and_end_one_by_one() {
        let bold = Style { bold: true, ..Style::default() };
        let bold_italic = Style { italic: true, ..bold };
        let italic = Style { italic: true, ..Style::default() };
        assert_eq!(
            runs("\x1b[1mbold \x1b[3mand italic\x1b[22m italic\x1b[23m plain"),
            vec![
                run("bold ", bold),
                run("and italic", bold_italic),
                run(" italic", italic),
                run(" plain", Style::default())
            ]
        );
        let all = Style { dim: true, underline: true, strikethrough: true, inverse: true, ..Style::default() };
        assert_eq!(runs("\x1b[2;4;9;7mx"), vec![run("x", all)]);
        assert_eq!(all.classes(), "ansi-dim ansi-underline ansi-strike ansi-inverse");
        assert_eq!(
            runs("\x1b[4mu\x1b[4:0mv\x1b[21mw\x1b[24;27;29mz")[1..],
            [
                run("v", Style::default()),
                run("w", Style { underline: true, ..Style::default() }),
                run("z", Style::default())
            ]
        );
    }

    #[test]
    fn the_256_colours_and_true_colour_in_both_notations() {
        let orange = foreground(Color::Indexed(208));
        let red = foreground(Color::Rgb(255, 0, 0));
        assert_eq!(
            runs("\x1b[38;5;208morange\x1b[39m \x1b[38;2;255;0;0mred\x1b[0m"),
            vec![run("orange", orange), run(" ", Style::default()), run("red", red)]
        );
        assert_eq!(runs("\x1b[38:5:208morange"), vec![run("orange", orange)]);
        assert_eq!(runs("\x1b[38:2:255:0:0mred"), vec![run("red", red)]);
        assert_eq!(runs("\x1b[38:2::255:0:0mred"), vec![run("red", red)]);
        let on_blue = Style { bold: true, background: Some(Color::Rgb(0, 0, 128)), ..Style::default() };
        assert_eq!(runs("\x1b[48;2;0;0;128;1mbold on blue\x1b[m"), vec![run("bold on blue", on_blue)]);
        // The codes after a colour are read on.
        assert_eq!(runs("\x1b[38;5;1;1mx"), vec![run("x", Style { bold: true, ..foreground(Color::Indexed(1)) })]);
        // Out of range or missing numbers give no colour; an underline colour is read and not shown.
        assert_eq!(runs("\x1b[38;5;300mx"), vec![run("x", Style::default())]);
        assert_eq!(runs("\x1b[38;2;1;2mx"), vec![run("x", Style::default())]);
        assert_eq!(runs("\x1b[38mx"), vec![run("x", Style::default())]);
        assert_eq!(runs("\x1b[58;5;1mx"), vec![run("x", Style::default())]);
        assert_eq!(runs("\x1b[58:2::1:2:3;1mx"), vec![run("x", Style { bold: true, ..Style::default() })]);
    }

    #[test]
    fn palette_colours_are_xterms() {
        assert_eq!(Color::Indexed(16).rgb(), (0, 0, 0));
        assert_eq!(Color::Indexed(21).rgb(), (0, 0, 255));
        assert_eq!(Color::Indexed(196).rgb(), (255, 0, 0));
        assert_eq!(Color::Indexed(208).rgb(), (255, 135, 0));
        assert_eq!(Color::Indexed(231).rgb(), (255, 255, 255));
        assert_eq!(Color::Indexed(232).rgb(), (8, 8, 8));
        assert_eq!(Color::Indexed(255).rgb(), (238, 238, 238));
        assert_eq!(Color::Indexed(9).rgb(), (255, 0, 0));
        assert_eq!(Color::Rgb(1, 2, 3).rgb(), (1, 2, 3));
    }

    #[test]
    fn classes_and_colour_properties() {
        // On the theme's background, the 16 colours are classes and the others properties made from the
        // numbers.
        let orange = foreground(Color::Indexed(208));
        assert_eq!(orange.classes(), "ansi-fg-rgb");
        assert_eq!(orange.color_properties(), (Some("#ff8700".to_owned()), None));
        assert_eq!(foreground(Color::Indexed(12)).color_properties(), (None, None));
        // On a background of its own, both colours are exact, and default text is dark on a light
        // background and light on a dark one.
        let both = Style {
            foreground: Some(Color::Indexed(0)),
            background: Some(Color::Rgb(250, 250, 250)),
            ..Style::default()
        };
        assert_eq!(both.classes(), "ansi-bg-rgb ansi-fg-exact");
        assert_eq!(both.color_properties(), (Some("#000000".to_owned()), Some("#fafafa".to_owned())));
        let light = Style { background: Some(Color::Indexed(2)), ..Style::default() };
        assert_eq!(light.classes(), "ansi-bg-rgb ansi-on-light");
        assert_eq!(light.color_properties(), (None, Some("#00cd00".to_owned())));
        let dark = Style { background: Some(Color::Indexed(17)), ..Style::default() };
        assert_eq!(dark.classes(), "ansi-bg-rgb ansi-on-dark");
        assert_eq!(dark.color_properties(), (None, Some("#00005f".to_owned())));
        // Inverse swaps the colours.
        let inverse = Style { inverse: true, foreground: Some(Color::Indexed(1)), ..Style::default() };
        assert_eq!(inverse.classes(), "ansi-inverse ansi-bg-rgb ansi-on-dark");
        assert_eq!(inverse.color_properties(), (None, Some("#cd0000".to_owned())));
        let inverse = Style { inverse: true, background: Some(Color::Rgb(0, 0, 0)), ..Style::default() };
        assert_eq!(inverse.classes(), "ansi-inverse ansi-fg-rgb");
        assert_eq!(inverse.color_properties(), (Some("#000000".to_owned()), None));
    }

    #[test]
    fn overwrites_keep_the_style_of_what_is_left() {
        let red = foreground(Color::Indexed(1));
        let green = foreground(Color::Indexed(2));
        assert_eq!(runs("\x1b[32mold\r\x1b[31mnew"), vec![run("new", red)]);
        assert_eq!(
            runs("\x1b[32mdone\x1b[0m 5%\r\x1b[K\x1b[32mdone\x1b[0m 100%"),
            vec![run("done", green), run(" 100%", Style::default())]
        );
        assert_eq!(runs("ab\x1b[31mc\x08\x08d"), vec![run("a", Style::default()), run("d", red)]);
        // A style across lines stays one run, line breaks included; a line break joins the run before it.
        assert_eq!(runs("\x1b[31ma\nb\x1b[0m\nc"), vec![run("a\nb\n", red), run("c", Style::default())]);
    }

    #[test]
    fn truncated_and_garbage_sequences() {
        assert_eq!(runs("x\x1b[38;2;255"), vec![run("x", Style::default())]);
        assert_eq!(runs("x\x1b[38;5"), vec![run("x", Style::default())]);
        assert_eq!(runs("\x1b[31"), vec![]);
        assert_eq!(runs("a\x1b[1;\u{e9}b"), vec![run("a\u{e9}b", Style::default())]);
        // Too many parameters: the sequence is dropped, its text not shown.
        let many = format!("\x1b[{}mx", "1;".repeat(100));
        assert_eq!(runs(&many), vec![run("x", Style::default())]);
        assert_eq!(runs(&format!("\x1b[{}mx", "9".repeat(50))), vec![run("x", Style::default())]);
        assert_eq!(runs("\x1b[1?mx\x1b[2"), vec![run("x", Style::default())]);
    }

    /// Text rich in the characters that escape sequences are made of.
    fn escape_soup() -> impl proptest::strategy::Strategy<Value = String> {
        let piece = proptest::prop_oneof![
            proptest::sample::select(vec![
                "\x1b", "[", "]", "\x07", "\\", "\r", "\n", "\x08", "1", ";", ":", "m", "G", "K", "38", "48", "5", "2",
                "é", "🦀", "\u{9b}", "\u{9c}", "\u{9d}", "\u{90}", "(", "P", "X", " ", "?", "\t", "\x18",
            ])
            .prop_map(str::to_owned),
            proptest::prelude::any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #[test]
        fn styled_text_is_the_stripped_text(text in escape_soup()) {
            let styled = styled_runs(&text);
            let joined: String = styled.iter().map(|run| run.text.as_str()).collect();
            let stripped = strip_ansi(&text);
            proptest::prop_assert_eq!(&joined, &stripped);
            proptest::prop_assert!(styled.iter().all(|run| !run.text.is_empty()));
            proptest::prop_assert!(styled.windows(2).all(|pair| pair[0].style != pair[1].style));
            proptest::prop_assert!(!stripped.contains(['\x1b', '\r', '\x07', '\x08', '\u{9b}']), "{:?}", stripped);
        }

        #[test]
        fn any_string_is_read_without_panic(text in proptest::prelude::any::<String>()) {
            let joined: String = styled_runs(&text).iter().map(|run| run.text.as_str()).collect();
            proptest::prop_assert_eq!(joined, strip_ansi(&text));
        }
    }
}
