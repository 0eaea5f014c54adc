"""One property for the agents' XML tool calls: any edit of a file, written as a Cline,
Roo Code or OpenHands call (with prose and the other calls around it), leaves the file an
independent oracle computes - a splice of the file's lines, or `str.replace` for the
text-editor command."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lsp_server.reply.marker_lines import edit_marker
from lsp_server.reply.search_replace import cline_syntax
from tests.reply.agent_workspace import examples, place

# no `<` or `&`: a line of text that reads as a tag or an entity is another property's; nor
# a line shaped like an edit marker, which is never written (tests/reply/test_marker_lines.py)
TEXT = st.text(st.sampled_from("abcxyz ()=+-*/:;,.'\"_>{}[]\t"), max_size=14).filter(
    lambda s: cline_syntax().kind(s) is None and edit_marker([s], 0) is None
)


@st.composite
def edits(draw):
    """A file of lines each unique (a numbered tag first), a range of them, new lines."""
    size = draw(st.integers(1, 20))
    lines = [f"#{k:03d}# {draw(TEXT)}".rstrip() for k in range(size)]
    start = draw(st.integers(0, size - 1))
    stop = draw(st.integers(start + 1, size))
    new = draw(st.lists(TEXT.map(str.rstrip), max_size=5))
    return lines, start, stop, new


def joined(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


@settings(max_examples=examples(150), deadline=None)
@given(edits(), st.sampled_from(["cline", "cline-legacy", "roo", "roo-numbered", "bare-cline"]))
def test_a_search_replace_call_splices_the_file(case, shape):
    lines, start, stop, new = case
    old = lines[start:stop]
    search, replace = joined(old), joined(new)
    if shape == "cline":
        body = f"------- SEARCH\n{search}=======\n{replace}+++++++ REPLACE\n"
        call = f"<replace_in_file>\n<path>f.txt</path>\n<diff>\n{body}</diff>\n</replace_in_file>"
    elif shape == "cline-legacy":
        body = f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"
        call = f"<replace_in_file>\n<path>f.txt</path>\n<diff>\n{body}</diff>\n</replace_in_file>"
    elif shape == "bare-cline":
        call = f"f.txt\n```\n------- SEARCH\n{search}=======\n{replace}+++++++ REPLACE\n```"
    else:
        if shape == "roo-numbered":
            search = joined([f"{start + 1 + k} | {x}" for k, x in enumerate(old)])
        header = f":start_line:{start + 1}\n-------\n"
        body = f"<<<<<<< SEARCH\n{header}{search}=======\n{replace}>>>>>>> REPLACE\n"
        call = f"<apply_diff>\n<path>f.txt</path>\n<diff>\n{body}</diff>\n</apply_diff>"
    reply = f"I'll change the file.\n\n{call}\n\nAnd the other one:\n\n" + other_call()
    placed = place(reply, {"f.txt": joined(lines), "g.txt": "g = 1\n"})
    assert placed.plan.ok, placed.codes()
    assert placed.files["f.txt"] == joined(lines[:start] + new + lines[stop:])
    assert placed.files["g.txt"] == "g = 2\n"


@settings(max_examples=examples(150), deadline=None)
@given(edits(), st.booleans())
def test_an_openhands_str_replace_is_str_replace(case, on_own_lines):
    lines, start, stop, new = case
    text = joined(lines)
    old_str, new_str = "\n".join(lines[start:stop]), "\n".join(new)
    if on_own_lines:
        params = f"<parameter=old_str>\n{old_str}\n</parameter>\n"
        params += f"<parameter=new_str>\n{new_str}\n</parameter>\n"
    else:
        # on the tags' lines, a line break first or last would be layout: not this case
        assume(not new_str.startswith("\n") and not new_str.endswith("\n"))
        params = f"<parameter=old_str>{old_str}</parameter>\n"
        params += f"<parameter=new_str>{new_str}</parameter>\n"
    call = (
        "<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n"
        f"<parameter=path>f.txt</parameter>\n{params}</function>\n"
    )
    placed = place(
        "Fixing it:\n\n" + call + "\n" + other_call(), {"f.txt": text, "g.txt": "g = 1\n"}
    )
    assert placed.plan.ok, placed.codes()
    assert placed.files["f.txt"] == text.replace(old_str, new_str, 1)


def other_call() -> str:
    return (
        "<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n"
        "<parameter=path>g.txt</parameter>\n<parameter=old_str>g = 1</parameter>\n"
        "<parameter=new_str>g = 2</parameter>\n</function>\n"
    )
