"""Cursor chat's placeholder comments name the language they leave out
(`/* ... (previous CSS remains the same) ... */`, a real reply of `closup/process-xbrl`):
they say code is left out, and the block is merged around them."""

from __future__ import annotations

from lsp_server.resolve.placeholders import is_placeholder_line
from tests.merge.support import plan, written

STYLE = """body {
    margin: 0;
}

#convert-button {
    display:none;
}

footer {
    color: gray;
}
"""


def test_a_placeholder_naming_the_language_is_one():
    for line in (
        "/* ... (previous CSS remains the same) ... */",
        "/* ... (rest of the CSS remains the same) ... */",
        "<!-- ... rest of the HTML unchanged ... -->",
    ):
        assert is_placeholder_line(line, "a.css"), line
    assert not is_placeholder_line("/* ... CSS for the mobile menu ... */", "a.css")


def test_a_css_rule_between_cursor_placeholders_is_merged(tmp_path):
    reply = (
        "```css:style.css\n/* ... (previous CSS remains the same) ... */\n\n"
        "#convert-button {\n    display: none;\n    margin: 20px auto;\n}\n\n"
        "/* ... (rest of the CSS remains the same) ... */\n```\n"
    )
    out = written(plan(tmp_path, {"style.css": STYLE}, reply), "style.css")
    assert out == STYLE.replace(
        "    display:none;\n", "    display: none;\n    margin: 20px auto;\n"
    )
