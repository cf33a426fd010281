"""One helper of the C-source checks (layers.py, repl/folders.py): the
braces of a C block."""


def block(text, i):
    """The block that opens with the brace at text[i], braces included."""
    depth, j = 0, i
    while True:
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
        if depth == 0:
            return text[i:j]
