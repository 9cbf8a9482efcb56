"""One walk over requirement lines for reading pins, relaxing them and the lines a lock file became."""
from __future__ import annotations

from artifactcopilot.provision.reqlines import MAX_DEPTH, requirement_lines, text_lines
from artifactcopilot.provision.requirements import read_requirements

FILES = {
    "requirements.txt": "numpy==1.16.5  # the paper's version\n-r extra/more.txt\nscipy \\\n  >=1.0\n-c cons.txt\n"
                        "-r ../outside.txt\n-r missing.txt\n",
    "extra/more.txt": "pandas==0.25.1\n",
}


def test_lines_with_their_file_number_and_depth():
    got = [(x.path, x.number, x.line, x.depth) for x in requirement_lines("requirements.txt", FILES.get)]
    assert got == [("requirements.txt", 1, "numpy==1.16.5", 0), ("requirements.txt", 2, "-r extra/more.txt", 0),
                   ("extra/more.txt", 1, "pandas==0.25.1", 1), ("requirements.txt", 3, "scipy    >=1.0", 0),
                   ("requirements.txt", 5, "-c cons.txt", 0), ("requirements.txt", 6, "-r ../outside.txt", 0),
                   ("requirements.txt", 7, "-r missing.txt", 0)]


def test_includes_say_whether_they_were_followed():
    inside = [(x.include, x.followed) for x in requirement_lines("requirements.txt", FILES.get,
                                                                 follow=lambda p: not p.startswith(".."))
              if x.include]
    assert inside == [("extra/more.txt", True), ("../outside.txt", False), ("missing.txt", False)]


def test_a_circle_of_includes_stops_at_the_depth_limit():
    circle = {"a.txt": "x==1\n-r b.txt\n", "b.txt": "y==2\n-r a.txt\n"}
    depths = [x.depth for x in requirement_lines("a.txt", circle.get)]
    assert max(depths) == MAX_DEPTH


def test_text_that_is_no_file_is_walked_the_same_way():
    assert [x.line for x in text_lines("a==1 # c\n\nb>=2 \\\n ; python_version<'3.8'\n")] == [
        "a==1", "", "b>=2   ; python_version<'3.8'"]


def test_reading_pins_notes_an_include_it_could_not_read():
    info = read_requirements("requirements.txt", FILES.get)
    assert ("numpy", "1.16.5") in info.pins and ("pandas", "0.25.1") in info.pins
    assert "requirements.txt includes missing.txt, which could not be read" in info.notes
