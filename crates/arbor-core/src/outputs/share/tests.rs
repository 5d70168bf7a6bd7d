use super::html::{escape, markdown};
use super::markdown::{code, fenced, prose};

#[test]
fn prose_keeps_markdown_but_not_markup_outside_code() {
    assert_eq!(prose("**bold** <script>x</script>"), "**bold** &lt;script>x&lt;/script>");
    assert_eq!(prose("use `Vec<u8>` here <b>"), "use `Vec<u8>` here &lt;b>");
    assert_eq!(prose("``a ` <b> ``<i>"), "``a ` <b> ``&lt;i>");
    // An unclosed backtick is a literal one: what follows it is still escaped.
    assert_eq!(prose("a ` <img src=x>"), "a ` &lt;img src=x>");
    assert_eq!(prose("```html\n<div>\n```\n<div>"), "```html\n<div>\n```\n&lt;div>");
    // A fence the log leaves open is closed, so the export's own text after it stays outside.
    assert_eq!(prose("```\n<div>"), "```\n<div>\n```\n");
}

#[test]
fn code_and_fences_outgrow_the_backticks_inside_them() {
    assert_eq!(code("a"), "`a`");
    assert_eq!(code("a `b` c"), "``a `b` c``");
    assert_eq!(code("`x"), "`` `x ``");
    assert_eq!(code("two\nlines"), "`two lines`");
    assert_eq!(fenced("x", "text"), "```text\nx\n```\n\n");
    assert_eq!(fenced("a\n````\nb\n", ""), "`````\na\n````\nb\n`````\n\n");
}

#[test]
fn markdown_becomes_html_with_the_logs_html_as_text() {
    let h = markdown("# T\n\n<script>alert(1)</script>\n\n**b** <img src=x onerror=alert(2)>");
    assert!(h.contains("<h1>T</h1>"), "{h}");
    assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{h}");
    assert!(h.contains("<strong>b</strong> &lt;img src=x onerror=alert(2)&gt;"), "{h}");
    assert!(!h.contains("<script") && !h.contains("<img"), "{h}");
}

#[test]
fn links_go_only_to_the_web_and_images_are_never_loaded() {
    let h = markdown("[ok](https://example.com/a?b) [bad](javascript:alert(1)) [rel](notes.md) ![i](http://t/x.png)");
    assert!(h.contains("<a rel=\"noopener noreferrer\" href=\"https://example.com/a?b\">ok</a>"), "{h}");
    assert!(!h.contains("href=\"javascript"), "{h}");
    assert!(h.contains("[javascript:alert(1)] bad"), "{h}");
    assert!(h.contains("href=\"notes.md\""), "{h}");
    assert!(!h.contains("<img"), "{h}");
    assert!(h.contains("[image http://t/x.png: i]"), "{h}");
    let d = markdown("[x](data:text/html,<b>) [y]( JavaScript:1)");
    assert!(
        !d.contains("href=\"data") && !d.to_lowercase().contains("href=\"javascript") && !d.contains("href=\" "),
        "{d}"
    );
}

#[test]
fn escaping_covers_text_and_attributes() {
    assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}
