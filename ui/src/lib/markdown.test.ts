import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

describe("renderMarkdown", () => {
  it("renders emphasis and lists", () => {
    expect(renderMarkdown("**bold** and *it*")).toBe("<p><strong>bold</strong> and <em>it</em></p>\n");
    expect(renderMarkdown("- a\n- b")).toContain("<li>a</li>");
  });
  it("shows raw HTML as text", () => {
    const out = renderMarkdown('<img src=x onerror="alert(1)"> <script>alert(2)</script>');
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<script");
    expect(out).toContain("&lt;script&gt;");
  });
  it("never makes a link the app would follow, nor fetches an image", () => {
    const out = renderMarkdown("[docs](https://example.com/a) ![logo](https://example.com/l.png) [x](javascript:alert(1))");
    expect(out).not.toContain("href=");
    expect(out).not.toContain("<a");
    expect(out).not.toContain("<img");
    expect(out).toContain("&lt;https://example.com/a&gt;");
    expect(out).toContain("[image: logo]");
  });
});
