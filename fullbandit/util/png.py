"""Text attached to a PNG file (a ``tEXt`` chunk), the image itself left byte for byte as it was."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from fullbandit.util.validation import InvalidParameterError

__all__ = ["add_png_text"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IEND = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))


def add_png_text(path, keyword: str, text: str) -> None:
    """Add the entry ``keyword: text`` to the PNG file ``path``, just before its end.

    Image viewers and libraries show it as metadata (Pillow: ``Image.open(path).text``;
    ``exiftool``; ``identify -verbose``).

    Parameters
    ----------
    path : str or os.PathLike
        A PNG file, as matplotlib's ``savefig`` writes it.
    keyword : str
        1 to 79 printable Latin-1 characters, no leading, trailing or double spaces
        (the PNG rules).
    text : str
        Latin-1 text (JSON with ``ensure_ascii=True`` always is).

    Raises
    ------
    InvalidParameterError
        If ``path`` is not a PNG file ending with its ``IEND`` chunk, or ``keyword`` or
        ``text`` break the PNG rules; nothing is written then.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> path = Path(tempfile.mkdtemp()) / "figure.png"
    >>> figure = plt.figure(figsize=(1, 1)); figure.savefig(path); plt.close(figure)
    >>> add_png_text(path, "Comment", "made for a test")
    >>> from PIL import Image
    >>> Image.open(path).text["Comment"]
    'made for a test'
    """
    if not (0 < len(keyword) < 80 and keyword == " ".join(keyword.split())
            and all(32 <= ord(character) <= 255 and ord(character) not in range(127, 161)
                    for character in keyword)):
        raise InvalidParameterError(f"keyword={keyword!r} must be 1 to 79 printable Latin-1 characters, "
                                    "without leading, trailing or double spaces")
    try:
        data = keyword.encode("latin-1") + b"\0" + text.encode("latin-1")
    except UnicodeEncodeError:
        raise InvalidParameterError("text must be Latin-1 text (e.g. JSON written with ensure_ascii=True)") from None
    path = Path(path)
    image = path.read_bytes()
    if not (image.startswith(_SIGNATURE) and image.endswith(_IEND)):
        raise InvalidParameterError(f"{path} is not a PNG file ending with its IEND chunk")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    with open(path, "r+b") as handle:  # only the end changes: the chunk goes in before IEND
        handle.seek(len(image) - len(_IEND))
        handle.write(chunk + _IEND)
