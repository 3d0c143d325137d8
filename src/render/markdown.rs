//! Markdown from session logs, rendered to HTML that is safe to insert with `innerHTML`.
//!
//! Log content is untrusted, so safety comes from construction rather than from filtering the output:
//!
//! - Raw HTML in the input (block and inline) becomes text, which the renderer escapes.
//! - Every element whose attributes depend on the input (links, images, code blocks, raw HTML blocks) is
//!   written here, with escaped attribute values and only allowed URL schemes.
//! - Parser extensions that put input into attributes (heading attributes, footnotes, wiki links) or that
//!   the renderer writes loosely (math, metadata blocks) stay off.
//!
//! Everything else goes through pulldown-cmark's HTML renderer, which escapes text.

use std::borrow::Cow;
use std::fmt::Write as _;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// The `rel` and `target` attributes of every link: links open in a new tab, without a referrer, and
/// without giving the new page a handle on this one.
const LINK_ATTRIBUTES: &str = r#" rel="noopener noreferrer nofollow" target="_blank""#;

/// URL schemes that links may use (compared without regard to case).
const ALLOWED_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// The longest language name kept from a code fence's info string.
const MAX_LANGUAGE_LEN: usize = 40;

/// Renders markdown to HTML that is safe to insert with `innerHTML`.
///
/// Supports tables, strikethrough and task lists. Raw HTML appears as literal text, links keep only
/// `http:`, `https:`, `mailto:` and `#fragment` URLs, images are never loaded (they become a labelled
/// link), and code blocks are wrapped as `<div class="code-block">` with an optional language label.
/// Raw HTML blocks become `<div class="md-raw-html">` with their lines separated by `<br>`.
pub fn markdown_to_html(text: &str) -> String {
    let text = replace_nul(text);
    let events = safe_events(Parser::new_ext(&text, parser_options()));
    let mut html = String::with_capacity(text.len() + text.len() / 2 + 16);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    // Table alignment comes as `style` attributes, which the page's Content-Security-Policy
    // refuses (no inline styles): classes instead. Text is escaped, so only the renderer's own
    // attributes have this form.
    for align in ["left", "center", "right"] {
        html = html.replace(&format!(r#" style="text-align: {align}""#), &format!(r#" class="align-{align}""#));
    }
    html
}

/// Replaces NUL characters with U+FFFD, as CommonMark requires for security.
fn replace_nul(text: &str) -> Cow<'_, str> {
    if text.contains('\0') { Cow::Owned(text.replace('\0', "\u{FFFD}")) } else { Cow::Borrowed(text) }
}

fn parser_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Rewrites the parser's events so that the HTML renderer can only produce safe markup: raw HTML becomes
/// text, and links, images, code blocks and raw HTML blocks become markup written (and escaped) here.
fn safe_events(mut parser: Parser<'_>) -> Vec<Event<'_>> {
    let mut events = Vec::new();
    // Whether each open link was written as an anchor (a disallowed URL leaves only the link's text).
    let mut open_links: Vec<bool> = Vec::new();
    while let Some(event) = parser.next() {
        match event {
            Event::Html(raw) | Event::InlineHtml(raw) => events.push(Event::Text(raw)),
            Event::Start(Tag::HtmlBlock) => events.push(Event::Html(raw_html_block(&mut parser).into())),
            Event::Start(Tag::CodeBlock(kind)) => events.push(Event::Html(code_block(&kind, &mut parser).into())),
            Event::Start(Tag::Image { dest_url, .. }) => {
                events.push(Event::InlineHtml(image(&dest_url, &mut parser).into()));
            }
            Event::Start(Tag::Link { link_type, dest_url, .. }) => match link_href(link_type, &dest_url) {
                Some(href) => {
                    events.push(Event::InlineHtml(anchor_start(&href).into()));
                    open_links.push(true);
                }
                None => open_links.push(false),
            },
            Event::End(TagEnd::Link) => {
                if open_links.pop() == Some(true) {
                    events.push(Event::InlineHtml(CowStr::Borrowed("</a>")));
                }
            }
            // The parser options keep these off; if they ever appear, they must not reach the renderer, which
            // writes some of them into attributes.
            Event::FootnoteReference(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                events.push(Event::Text(text));
            }
            Event::Start(Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_))
            | Event::End(TagEnd::FootnoteDefinition | TagEnd::MetadataBlock(_)) => {}
            Event::Start(Tag::Heading { level, .. }) => {
                events.push(Event::Start(Tag::Heading { level, id: None, classes: Vec::new(), attrs: Vec::new() }));
            }
            other => events.push(other),
        }
    }
    events
}

/// Consumes the events of a raw HTML block up to its end and renders its source as escaped text.
fn raw_html_block(parser: &mut Parser<'_>) -> String {
    let source = collect_text_until_end(parser);
    let mut html = String::from(r#"<div class="md-raw-html">"#);
    for (index, line) in source.trim_end_matches(['\n', '\r']).lines().enumerate() {
        if index > 0 {
            html.push_str("<br>\n");
        }
        push_escaped(&mut html, line);
    }
    html.push_str("</div>\n");
    html
}

/// Consumes the events of a code block up to its end and renders it with its language label.
fn code_block(kind: &CodeBlockKind<'_>, parser: &mut Parser<'_>) -> String {
    let code = collect_text_until_end(parser);
    let language = match kind {
        CodeBlockKind::Fenced(info) => code_language(info),
        CodeBlockKind::Indented => "",
    };
    let mut html = String::with_capacity(code.len() + 128);
    html.push_str(r#"<div class="code-block">"#);
    if language.is_empty() {
        html.push_str("<pre><code>");
    } else {
        // The language is restricted to characters that need no escaping.
        html.push_str(r#"<div class="code-lang">"#);
        html.push_str(language);
        html.push_str(r#"</div><pre><code class="language-"#);
        html.push_str(language);
        html.push_str(r#"">"#);
    }
    push_escaped(&mut html, &code);
    html.push_str("</code></pre></div>\n");
    html
}

/// The language of a code fence: the info string's first word, up to its first character outside
/// `[A-Za-z0-9_+#.-]`.
fn code_language(info: &str) -> &str {
    let first_word = info.split_whitespace().next().unwrap_or("");
    let end = first_word
        .char_indices()
        .find(|&(_, ch)| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '+' | '#' | '.' | '-')))
        .map_or(first_word.len(), |(index, _)| index);
    let language = first_word.get(..end).unwrap_or("");
    // The allowed characters are ASCII, so any byte index is a character boundary.
    language.get(..MAX_LANGUAGE_LEN.min(language.len())).unwrap_or(language)
}

/// Consumes the events of an image up to its end and renders it as a label that links to the image,
/// without loading it.
fn image(dest_url: &str, parser: &mut Parser<'_>) -> String {
    let alt = collect_text_until_end(parser);
    let alt = alt.trim();
    let label = if alt.is_empty() { "image" } else { alt };
    let mut html = String::from(r#"<span class="md-image">"#);
    let href = allowed_href(dest_url);
    if let Some(href) = &href {
        html.push_str(&anchor_start(href));
    }
    html.push_str("🖼 ");
    push_escaped(&mut html, label);
    if href.is_some() {
        html.push_str("</a>");
    }
    html.push_str("</span>");
    html
}

/// The opening `<a>` tag for an allowed, not yet escaped, URL. Link titles are left out: the `href` is
/// the only attribute whose value comes from the log.
fn anchor_start(href: &str) -> String {
    let mut html = String::from(r#"<a href=""#);
    push_escaped_href(&mut html, href);
    html.push('"');
    html.push_str(LINK_ATTRIBUTES);
    html.push('>');
    html
}

/// The URL a link points to, or `None` if it is not allowed. Email autolinks have no scheme in the
/// parser's event, so they get `mailto:`.
fn link_href(link_type: LinkType, dest_url: &str) -> Option<String> {
    match link_type {
        LinkType::Email => allowed_href(&format!("mailto:{dest_url}")),
        _ => allowed_href(dest_url),
    }
}

/// Returns the URL to write into an `href` if it is allowed: an `http:`, `https:` or `mailto:` URL, or a
/// `#fragment`. Like browsers, ignores surrounding whitespace and control characters, and tabs and newlines
/// anywhere; everything else (`javascript:`, `data:`, `//host`, relative paths) is refused.
fn allowed_href(url: &str) -> Option<String> {
    let trimmed = url.trim_matches(|ch: char| ch.is_whitespace() || ch.is_control());
    let cleaned: String = trimmed.chars().filter(|ch| !matches!(ch, '\t' | '\n' | '\r')).collect();
    if cleaned.starts_with('#') {
        return Some(cleaned);
    }
    let (scheme, _) = cleaned.split_once(':')?;
    ALLOWED_SCHEMES.iter().any(|allowed| scheme.eq_ignore_ascii_case(allowed)).then_some(cleaned)
}

/// Consumes events up to the end of the element whose start was just read, and returns their text.
fn collect_text_until_end(parser: &mut Parser<'_>) -> String {
    let mut text = String::new();
    let mut depth = 0usize;
    for event in parser.by_ref() {
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => match depth.checked_sub(1) {
                Some(outer) => depth = outer,
                None => break,
            },
            Event::Text(part)
            | Event::Code(part)
            | Event::Html(part)
            | Event::InlineHtml(part)
            | Event::InlineMath(part)
            | Event::DisplayMath(part)
            | Event::FootnoteReference(part) => text.push_str(&part),
            Event::SoftBreak | Event::HardBreak | Event::Rule => text.push(' '),
            Event::TaskListMarker(_) => {}
        }
    }
    text
}

/// Appends `text` with the characters that are special in HTML text and attribute values escaped.
fn push_escaped(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(index) = rest.find(['&', '<', '>', '"', '\'']) {
        let (plain, special) = rest.split_at(index);
        out.push_str(plain);
        let mut special_chars = special.chars();
        match special_chars.next() {
            Some('&') => out.push_str("&amp;"),
            Some('<') => out.push_str("&lt;"),
            Some('>') => out.push_str("&gt;"),
            Some('"') => out.push_str("&quot;"),
            Some('\'') => out.push_str("&#39;"),
            Some(other) => out.push(other),
            None => {}
        }
        rest = special_chars.as_str();
    }
    out.push_str(rest);
}

/// Appends a URL for an `href` attribute: spaces, control characters, quotes, angle brackets and backticks
/// percent-encoded, and `&` escaped.
fn push_escaped_href(out: &mut String, href: &str) {
    for ch in href.chars() {
        if ch.is_ascii_control() || matches!(ch, ' ' | '"' | '\'' | '<' | '>' | '`') {
            // Writing to a `String` cannot fail.
            let _ = write!(out, "%{:02X}", u32::from(ch));
        } else if ch == '&' {
            out.push_str("&amp;");
        } else {
            out.push(ch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The elements the renderer may produce, with the attributes each may have.
    const ALLOWED_ELEMENTS: &[(&str, &[&str])] = &[
        ("a", &["href", "rel", "target"]),
        ("blockquote", &[]),
        ("br", &[]),
        ("code", &["class"]),
        ("del", &[]),
        ("div", &["class"]),
        ("em", &[]),
        ("h1", &[]),
        ("h2", &[]),
        ("h3", &[]),
        ("h4", &[]),
        ("h5", &[]),
        ("h6", &[]),
        ("hr", &[]),
        ("input", &["disabled", "type", "checked"]),
        ("li", &[]),
        ("ol", &["start"]),
        ("p", &[]),
        ("pre", &[]),
        ("span", &["class"]),
        ("strong", &[]),
        ("table", &[]),
        ("tbody", &[]),
        ("td", &["class"]),
        ("th", &["class"]),
        ("thead", &[]),
        ("tr", &[]),
        ("ul", &[]),
    ];

    /// A tag of the output, as a browser would read it.
    #[derive(Debug)]
    struct ParsedTag {
        name: String,
        attributes: Vec<(String, String)>,
    }

    /// Reads the tags of the renderer's output, failing on anything a browser could read differently from
    /// this simple reading (unquoted or single-quoted values, `<` inside tags, comments, unclosed tags).
    fn parse_tags(html: &str) -> Vec<ParsedTag> {
        let mut tags = Vec::new();
        let mut rest = html;
        while let Some(start) = rest.find('<') {
            let after = &rest[start + 1..];
            let end = after.find('>').unwrap_or_else(|| panic!("unclosed tag in {html:?}"));
            let inside = &after[..end];
            assert!(!inside.contains('<'), "`<` inside a tag in {html:?}");
            let inside = inside.trim_end_matches('/').trim_start_matches('/');
            let name_end = inside.find([' ', '\n', '\t']).unwrap_or(inside.len());
            let name = inside[..name_end].to_ascii_lowercase();
            assert!(!name.is_empty() && name.chars().all(|ch| ch.is_ascii_alphanumeric()), "odd tag {name:?}");
            let mut attributes = Vec::new();
            let mut attribute_text = inside[name_end..].trim();
            while !attribute_text.is_empty() {
                let equals = attribute_text.find('=').unwrap_or_else(|| panic!("attribute without value: {html:?}"));
                let attribute_name = attribute_text[..equals].trim().to_ascii_lowercase();
                let value_text = &attribute_text[equals + 1..];
                assert!(value_text.starts_with('"'), "unquoted attribute value in {html:?}");
                let value_end = value_text[1..].find('"').expect("unterminated attribute value");
                let value = &value_text[1..1 + value_end];
                attributes.push((attribute_name, decode_entities(value)));
                attribute_text = value_text[value_end + 2..].trim_start();
            }
            tags.push(ParsedTag { name, attributes });
            rest = &after[end + 1..];
        }
        tags
    }

    /// Decodes the entities the renderers write; any other `&` would be a bug worth failing on.
    fn decode_entities(value: &str) -> String {
        let decoded = value
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        assert!(!decoded.contains("&#"), "unexpected character reference in {value:?}");
        decoded
    }

    /// Asserts that the output contains only allowed elements and attributes, safe link targets, and none
    /// of the classic injection markers.
    fn assert_safe(html: &str) {
        let lower = html.to_ascii_lowercase();
        for marker in ["<script", "<img", "<iframe", "<svg", "<style", "<object", "<!--"] {
            assert!(!lower.contains(marker), "{marker} in {html:?}");
        }
        for tag in parse_tags(html) {
            let Some((_, allowed_attributes)) = ALLOWED_ELEMENTS.iter().find(|(name, _)| *name == tag.name) else {
                panic!("element <{}> in {html:?}", tag.name);
            };
            for (name, value) in &tag.attributes {
                assert!(allowed_attributes.contains(&name.as_str()), "attribute {name} on <{}> in {html:?}", tag.name);
                assert!(!name.starts_with("on"), "event handler in {html:?}");
                let value_lower = value.to_ascii_lowercase();
                for marker in ["javascript:", "vbscript:", "data:"] {
                    assert!(!value_lower.contains(marker), "{marker} in attribute of {html:?}");
                }
                match name.as_str() {
                    "href" => assert!(
                        ["http:", "https:", "mailto:", "#"].iter().any(|prefix| value_lower.starts_with(prefix)),
                        "href {value:?} in {html:?}"
                    ),
                    "class" => assert!(
                        value.chars().all(|ch| ch.is_ascii_alphanumeric() || "_+#.- ".contains(ch)),
                        "class {value:?}"
                    ),
                    "rel" => assert_eq!(value, "noopener noreferrer nofollow"),
                    "target" => assert_eq!(value, "_blank"),
                    _ => {}
                }
            }
            if tag.name == "a" && tag.attributes.iter().any(|(name, _)| name == "href") {
                assert!(tag.attributes.iter().any(|(name, _)| name == "rel"), "link without rel in {html:?}");
            }
        }
    }

    fn render(markdown: &str) -> String {
        let html = markdown_to_html(markdown);
        assert_safe(&html);
        html
    }

    #[test]
    fn renders_ordinary_markdown() {
        let html = render("# Title\n\nSome *emphasis*, **strong**, `code` and ~~gone~~.\n\n- one\n- two\n");
        assert_eq!(
            html,
            "<h1>Title</h1>\n<p>Some <em>emphasis</em>, <strong>strong</strong>, <code>code</code> and \
             <del>gone</del>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
        );
    }

    #[test]
    fn renders_tables_and_task_lists() {
        let html = render("| File | Lines |\n|:-----|------:|\n| a.rs | 12 |\n\n- [x] done\n- [ ] todo\n");
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains(r#"<th class="align-left">File</th>"#), "{html}");
        assert!(html.contains(r#"<td class="align-right">12</td>"#), "{html}");
        assert!(!html.contains("style="), "no inline style for the CSP to refuse: {html}");
        assert!(html.contains(r#"<input disabled="" type="checkbox" checked=""/>"#), "{html}");
    }

    #[test]
    fn leaves_smart_punctuation_and_footnotes_off() {
        let html = render("\"quoted\" -- it's... done[^1]\n\n[^1]: note\n");
        assert!(html.contains("&quot;quoted&quot;") || html.contains("\"quoted\""), "{html}");
        assert!(html.contains("--"), "{html}");
        assert!(!html.contains('“') && !html.contains('–') && !html.contains('…'), "{html}");
        assert!(!html.contains("footnote"), "{html}");
    }

    #[test]
    fn ordered_list_keeps_its_start() {
        let html = render("3. three\n4. four\n");
        assert!(html.starts_with(r#"<ol start="3">"#), "{html}");
    }

    #[test]
    fn script_tag_is_text() {
        let html = render("<script>alert(1)</script>");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
    }

    #[test]
    fn inline_script_tag_is_text() {
        let html = render("before <script>alert(1)</script> after");
        assert_eq!(html, "<p>before &lt;script&gt;alert(1)&lt;/script&gt; after</p>\n");
    }

    #[test]
    fn img_tag_with_onerror_is_text() {
        let html = render("<img src=x onerror=alert(1)>");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        let html = render("text <img src=x onerror=alert(1)> text");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
    }

    #[test]
    fn raw_anchor_is_text() {
        let html = render(r#"<a href="javascript:alert(1)">click</a>"#);
        assert!(html.contains("&lt;a href=\"javascript:alert(1)\"&gt;click&lt;/a&gt;"), "{html}");
        assert!(!html.contains("<a"), "{html}");
    }

    #[test]
    fn claude_code_tags_appear_literally() {
        let html = render(
            "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
        );
        assert!(html.contains("&lt;command-message&gt;init is analyzing your codebase…&lt;/command-message&gt;"));
        assert!(html.contains("&lt;command-name&gt;/init&lt;/command-name&gt;"), "{html}");
    }

    #[test]
    fn raw_html_block_keeps_its_lines() {
        let html = render(
            "<system-reminder>\nWhenever you read a file, check it.\n*not emphasis*\n</system-reminder>\n\nAfter.",
        );
        assert_eq!(
            html,
            "<div class=\"md-raw-html\">&lt;system-reminder&gt;<br>\nWhenever you read a file, check it.<br>\n\
             *not emphasis*<br>\n&lt;/system-reminder&gt;</div>\n<p>After.</p>\n"
        );
    }

    #[test]
    fn html_comments_and_cdata_are_text() {
        let html = render("<!-- hidden --><b>x</b>\n\n<![CDATA[ <script> ]]>\n\n<?php echo 1 ?>");
        assert!(html.contains("&lt;!-- hidden --&gt;&lt;b&gt;x&lt;/b&gt;"), "{html}");
        assert!(html.contains("&lt;![CDATA[ &lt;script&gt; ]]&gt;"), "{html}");
    }

    #[test]
    fn entities_stay_escaped() {
        let html = render("&lt;script&gt;alert(1)&lt;/script&gt; and &#60;img src=x&#62;");
        assert_eq!(html, "<p>&lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x&gt;</p>\n");
        let html = render("&amp;lt;script&amp;gt;");
        assert_eq!(html, "<p>&amp;lt;script&amp;gt;</p>\n");
    }

    #[test]
    fn allowed_links_get_safe_attributes() {
        let html = render("[docs](https://example.com/a?b=1&c=2 \"The docs\")");
        assert_eq!(
            html,
            "<p><a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noopener noreferrer nofollow\" \
             target=\"_blank\">docs</a></p>\n"
        );
        for markdown in ["[a](http://x.test)", "[a](HTTPS://X.TEST)", "[a](mailto:me@x.test)", "[a](#section)"] {
            let html = render(markdown);
            assert!(html.contains("<a href="), "{markdown} → {html}");
        }
    }

    #[test]
    fn javascript_links_lose_their_anchor() {
        for markdown in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x]( javascript:alert(1))",
            "[x](<javascript:alert(1)>)",
            "[x](<\tjavascript:alert(1)>)",
            "[x](java&#09;script:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](&#x6A;avascript:alert(1))",
            "[x](vbscript:msgbox(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
            "[x](file:///etc/passwd)",
            "[x](//evil.example/path)",
            "[x](/relative/path)",
            "[x](relative.html)",
            "[x](http)",
            "[x](https//no-colon.example)",
        ] {
            let html = render(markdown);
            assert_eq!(html, "<p>x</p>\n", "{markdown}");
        }
    }

    #[test]
    fn reference_links_are_checked_too() {
        let html = render("[bad][r] and [good][g]\n\n[r]: javascript:alert(1)\n[g]: https://ok.example\n");
        assert_eq!(
            html,
            "<p>bad and <a href=\"https://ok.example\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">good</a>\
             </p>\n"
        );
    }

    #[test]
    fn disallowed_link_keeps_formatted_text() {
        let html = render("[**bold** text](javascript:alert(1)) after");
        assert_eq!(html, "<p><strong>bold</strong> text after</p>\n");
    }

    #[test]
    fn link_title_is_dropped() {
        let html = render("[x](https://a.example \"t\\\" onmouseover=\\\"alert(1)\")");
        assert!(!html.contains("title") && !html.contains("onmouseover"), "{html}");
    }

    #[test]
    fn autolinks_are_checked() {
        let html = render("<https://example.com/x> and <javascript:alert(1)> and <me@example.com>");
        assert_eq!(
            html,
            "<p><a href=\"https://example.com/x\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">\
             https://example.com/x</a> and javascript:alert(1) and <a href=\"mailto:me@example.com\" \
             rel=\"noopener noreferrer nofollow\" target=\"_blank\">me@example.com</a></p>\n"
        );
        let html = render("<JAVASCRIPT:alert(document.cookie)> <data:text/html,x> <vbscript:x>");
        assert!(!html.contains("<a"), "{html}");
    }

    #[test]
    fn href_with_quotes_cannot_break_out() {
        let html = render("[x](<https://a.example/\" onmouseover=\"alert(1)>)");
        assert!(html.contains(r#"href="https://a.example/%22%20onmouseover=%22alert(1)""#), "{html}");
        let html = render("[x](https://a.example/'>`x)");
        assert!(html.contains(r#"href="https://a.example/%27%3E%60x""#), "{html}");
    }

    #[test]
    fn images_are_never_loaded() {
        let html = render("![tracking pixel](https://evil.example/t.png)");
        assert_eq!(
            html,
            "<p><span class=\"md-image\"><a href=\"https://evil.example/t.png\" rel=\"noopener noreferrer nofollow\" \
             target=\"_blank\">🖼 tracking pixel</a></span></p>\n"
        );
        let html = render("![x](https://evil.example/t.png)");
        assert!(!html.contains("<img"), "{html}");
    }

    #[test]
    fn image_with_disallowed_url_is_just_its_label() {
        let html = render("![<b>alt</b>](javascript:alert(1))");
        assert_eq!(html, "<p><span class=\"md-image\">🖼 &lt;b&gt;alt&lt;/b&gt;</span></p>\n");
        let html = render("![](data:image/png;base64,AAAA)");
        assert_eq!(html, "<p><span class=\"md-image\">🖼 image</span></p>\n");
    }

    #[test]
    fn nested_images_and_links_in_alt_text_are_flattened() {
        let html = render("![a ![b](https://x.example/b.png) [c](javascript:x) *d*](https://x.example/a.png \"T\")");
        assert!(html.contains("🖼 a b c d</a>"), "{html}");
        assert!(!html.contains("title"), "{html}");
        let html = render("[![badge](https://img.example/b.svg)](https://ci.example)");
        assert!(html.contains("<a href=\"https://ci.example\""), "{html}");
        assert!(html.contains("🖼 badge"), "{html}");
    }

    #[test]
    fn fenced_code_block_has_language_label() {
        let html = render("```rust\nfn main() {\n    println!(\"<hi> & bye\");\n}\n```\n");
        assert_eq!(
            html,
            "<div class=\"code-block\"><div class=\"code-lang\">rust</div><pre><code class=\"language-rust\">\
             fn main() {\n    println!(&quot;&lt;hi&gt; &amp; bye&quot;);\n}\n</code></pre></div>\n"
        );
    }

    #[test]
    fn code_block_without_language_has_no_label() {
        let html = render("```\nplain\n```\n");
        assert_eq!(html, "<div class=\"code-block\"><pre><code>plain\n</code></pre></div>\n");
        let html = render("Intro:\n\n    indented <b>\n    code\n");
        assert_eq!(
            html,
            "<p>Intro:</p>\n<div class=\"code-block\"><pre><code>indented &lt;b&gt;\ncode\n</code></pre></div>\n"
        );
    }

    #[test]
    fn code_block_cannot_close_its_tags() {
        let html = render("```html\n</code></pre><script>alert(1)</script>\n```");
        assert!(html.contains("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert_eq!(html.matches("</code>").count(), 1, "{html}");
    }

    #[test]
    fn malicious_info_string_is_cut() {
        let html = render("```rust\" onmouseover=\"x\nlet a = 1;\n```");
        assert!(!html.contains("onmouseover"), "{html}");
        assert!(html.contains("<div class=\"code-lang\">rust</div>"), "{html}");
        assert!(html.contains("<code class=\"language-rust\">"), "{html}");
        let html = render("```\"><script>alert(1)</script>\nx\n```");
        assert!(html.starts_with("<div class=\"code-block\"><pre><code>x"), "{html}");
        let html = render("~~~ c++ {.numberLines}\nint x;\n~~~");
        assert!(html.contains("language-c++"), "{html}");
        let html = render("```rust,ignore\nx\n```");
        assert!(html.contains("language-rust\""), "{html}");
    }

    #[test]
    fn code_language_is_bounded() {
        assert_eq!(code_language("c#"), "c#");
        assert_eq!(code_language("  objective-c.m  extra"), "objective-c.m");
        assert_eq!(code_language("{python}"), "");
        assert_eq!(code_language("日本語"), "");
        assert_eq!(code_language(&"a".repeat(100)).len(), MAX_LANGUAGE_LEN);
        assert_eq!(code_language(""), "");
    }

    #[test]
    fn inline_code_is_escaped() {
        let html = render("Use `<script>` and `` ` `` carefully");
        assert_eq!(html, "<p>Use <code>&lt;script&gt;</code> and <code>`</code> carefully</p>\n");
    }

    #[test]
    fn heading_attributes_are_not_parsed() {
        let html = render("# Title {#id .class onclick=alert(1)}");
        assert!(html.starts_with("<h1>Title {#id .class onclick=alert(1)}</h1>"), "{html}");
    }

    #[test]
    fn markdown_inside_table_cells_is_safe() {
        let html = render(
            "| a | b |\n|---|---|\n| <script>x</script> | [l](javascript:x) |\n| ![i](https://e.example/i) | `<b>` |\n",
        );
        assert!(html.contains("<td>&lt;script&gt;x&lt;/script&gt;</td>"), "{html}");
        assert!(html.contains("<td>l</td>"), "{html}");
    }

    #[test]
    fn real_shaped_assistant_message() {
        let markdown = "I'll fix the failing test. Let me look at `src/parser.rs`:\n\n\
            ```rust\nfn parse(input: &str) -> Result<Ast, Error> {\n    todo!()\n}\n```\n\n\
            The issue is on line 42 — the `<T>` bound is missing. See [the docs](https://doc.rust-lang.org/std/).\n\n\
            1. Add the bound\n2. Re-run `cargo test`\n\n> **Note:** this changes the public API.\n";
        let html = render(markdown);
        assert!(html.contains("<code>src/parser.rs</code>"), "{html}");
        assert!(html.contains("Result&lt;Ast, Error&gt;"), "{html}");
        assert!(html.contains("<code>&lt;T&gt;</code>"), "{html}");
        assert!(html.contains("<blockquote>"), "{html}");
        assert!(html.contains("<ol>"), "{html}");
    }

    #[test]
    fn empty_and_whitespace_inputs() {
        assert_eq!(render(""), "");
        assert_eq!(render("   \n\n  "), "");
        assert_eq!(render("\0"), "<p>\u{FFFD}</p>\n");
    }

    #[test]
    fn xss_payload_collection_is_safe() {
        let payloads = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<svg onload=alert(1)>",
            "<iframe src=\"javascript:alert(1)\"></iframe>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<div style=\"background:url(javascript:alert(1))\">",
            "<style>body{display:none}</style>",
            "<object data=\"data:text/html,x\"></object>",
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x]( javascript:alert(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](\u{1}javascript:alert(1))",
            "![x](https://evil.example/t.png)",
            "![x](javascript:alert(1))",
            "![x\" onerror=\"alert(1)](https://e.example/a.png)",
            "<javascript:alert(1)>",
            "&lt;script&gt;",
            "```\n</code></pre><script>alert(1)</script>\n```",
            "```rust\" onmouseover=\"x\ncode\n```",
            "<!-- <script>alert(1)</script> -->",
            "[a](https://x.example \"\\\"><script>alert(1)</script>\")",
            "`<img src=x onerror=alert(1)>`",
            "<details open ontoggle=alert(1)>",
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
            "[x]: javascript:alert(1)\n\n[x]",
            "<a href=\"#\" onclick=\"alert(1)\">x</a>",
            "<textarea><script>alert(1)</script></textarea>",
        ];
        for payload in payloads {
            render(payload);
            // In every block context too.
            render(&format!("> {payload}"));
            render(&format!("- {payload}"));
            render(&format!("| h |\n|---|\n| {payload} |"));
            render(&format!("# {payload}"));
            render(&format!("*{payload}*"));
        }
    }

    /// Renders many random mixtures of markdown syntax and payload fragments and checks each output.
    #[test]
    fn random_mixtures_are_safe() {
        let fragments = [
            "<",
            ">",
            "\"",
            "'",
            "&",
            "&#",
            ";",
            "[",
            "]",
            "(",
            ")",
            "!",
            "`",
            "```",
            "~~~",
            "\n",
            "\n\n",
            " ",
            "    ",
            "*",
            "_",
            "~~",
            "#",
            "- ",
            "1. ",
            "> ",
            "|",
            "---",
            "<script>",
            "</script>",
            "<img src=x onerror=alert(1)>",
            "javascript:",
            "JaVaScRiPt:",
            "data:",
            "https://x.example/",
            "mailto:a@b.example",
            "#frag",
            "<a href=",
            "onmouseover=",
            "\\",
            "&lt;",
            "&#106;",
            "\t",
            "\u{0}",
            "\r",
            "é",
            "🖼",
            "[ ]",
            "[x]",
            "<!--",
            "-->",
            "<system-reminder>",
            "</system-reminder>",
            "\"x\"",
            "'y'",
            ":",
            "//",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let length = (next() % 40) as usize;
            let markdown: String = (0..length).map(|_| fragments[(next() % fragments.len() as u64) as usize]).collect();
            let html = markdown_to_html(&markdown);
            assert_safe(&html);
        }
    }

    #[test]
    fn allowed_href_rules() {
        assert_eq!(allowed_href(" https://a.example ").as_deref(), Some("https://a.example"));
        assert_eq!(allowed_href("\u{0}\u{1f}http://a.example\u{7f}").as_deref(), Some("http://a.example"));
        assert_eq!(allowed_href("ht\ttp://a.example").as_deref(), Some("http://a.example"));
        assert_eq!(allowed_href("MAILTO:x@y.example").as_deref(), Some("MAILTO:x@y.example"));
        assert_eq!(allowed_href("#top").as_deref(), Some("#top"));
        assert_eq!(allowed_href("java\nscript:alert(1)"), None);
        assert_eq!(allowed_href("\u{200b}javascript:alert(1)"), None);
        assert_eq!(allowed_href(""), None);
        assert_eq!(allowed_href(":"), None);
        assert_eq!(allowed_href("https"), None);
    }

    #[test]
    fn escaping() {
        let mut out = String::new();
        push_escaped(&mut out, "a<b>&\"c'é");
        assert_eq!(out, "a&lt;b&gt;&amp;&quot;c&#39;é");
        let mut out = String::new();
        push_escaped_href(&mut out, "https://a.example/x y\"\u{7}&");
        assert_eq!(out, "https://a.example/x%20y%22%07&amp;");
    }
}
