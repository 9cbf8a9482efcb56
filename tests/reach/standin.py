"""A stand-in web on 127.0.0.1 for the tests of fetching: one HTTP server that is both a forward proxy answering for
made-up hosts from fixture data, and the hosts' API when addressed directly (a GitHub API stand-in for
ARTIFACTCOPILOT_GITHUB_URL). Bare git repositories are served over git's dumb HTTP protocol (their files as they lie
on disk, after `git update-server-info`).

Nothing leaves the machine: the server listens on 127.0.0.1 only, never connects anywhere itself, and answers for a
host it does not know the way a proxy that cannot resolve it does (502, "could not resolve host"). Every request it
saw is kept in `seen`, so a test can say which URLs the review fetched.
"""
from __future__ import annotations

import io
import subprocess
import tarfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


class StandIn:
    """Routes: (host, path) -> Answer; host -> folder (files served by path, e.g. a bare repository); `down`: hosts
    that answer like a host that cannot be reached; `api`: path -> Answer for requests made to the server itself."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Answer] = {}
        self.folders: dict[tuple[str, str], Path] = {}
        self.api: dict[str, Answer] = {}
        self.seen: list[tuple[str, str]] = []
        """(method, absolute URL) of every request, in order."""
        self.lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_CONNECT(self) -> None:  # noqa: N802 - no TLS here: a proxy that refuses the tunnel
                stand_in._log("CONNECT", self.path)
                self._send(Answer(502, b"tunnel refused by the stand-in proxy\n"))

            def do_HEAD(self) -> None:  # noqa: N802
                self._answer(head=True)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(head=False)

            def _answer(self, head: bool) -> None:
                url = self.path if "://" in self.path else f"http://{self.headers.get('Host', '')}{self.path}"
                stand_in._log(self.command, url)
                self._send(stand_in.answer(url, direct="://" not in self.path), head)

            def _send(self, answer: Answer, head: bool = False) -> None:
                self.send_response(answer.status)
                for key, value in {"Content-Length": str(len(answer.body)), **answer.headers}.items():
                    self.send_header(key, value)
                self.end_headers()
                if not head:
                    self.wfile.write(answer.body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _log(self, method: str, url: str) -> None:
        with self.lock:
            self.seen.append((method, url))

    def fetched(self, host: str) -> list[str]:
        return [url for _, url in self.seen if urlsplit(url).hostname == host]

    # ---- what it answers --------------------------------------------------------------------------------------
    def file(self, url: str, body: bytes | str, status: int = 200, **headers: str) -> None:
        parts = urlsplit(url)
        self.routes[(parts.netloc, parts.path)] = Answer(status, body.encode() if isinstance(body, str) else body,
                                                         headers)

    def folder(self, url: str, path: Path) -> None:
        parts = urlsplit(url)
        self.folders[(parts.netloc, parts.path.rstrip("/"))] = path

    def answer(self, url: str, direct: bool) -> Answer:
        parts = urlsplit(url)
        if direct and parts.hostname == "127.0.0.1" and parts.port == self.port:
            return self.api.get(parts.path + (f"?{parts.query}" if parts.query else ""),
                                self.api.get(parts.path, Answer(404, b'{"message": "Not Found"}')))
        if (parts.netloc, parts.path) in self.routes:
            return self.routes[(parts.netloc, parts.path)]
        for (host, prefix), root in self.folders.items():
            if host == parts.netloc and (parts.path + "/").startswith(prefix + "/"):
                target = (root / parts.path[len(prefix):].lstrip("/")).resolve()
                if root.resolve() in [target, *target.parents] and target.is_file():
                    return Answer(200, target.read_bytes())
                return Answer(404, b"Not Found\n")
        if any(host == parts.netloc for host, _ in [*self.routes, *self.folders]):
            return Answer(404, b"<html><body>404 Not Found</body></html>\n", {"Content-Type": "text/html"})
        return Answer(502, f"ERR_DNS_FAIL: could not resolve host {parts.hostname}\n".encode(),
                      {"X-Squid-Error": "ERR_DNS_FAIL 0"})

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def bare_repository(work: Path, files: dict[str, str], name: str = "repo") -> tuple[Path, str]:
    """A bare git repository holding `files` in one commit, ready for git's dumb HTTP protocol; (path, commit)."""
    src, bare = work / f"{name}-src", work / f"{name}.git"
    src.mkdir(parents=True)
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@example.org", "HOME": str(work), "PATH": "/usr/bin:/bin"}
    for argv in (["git", "init", "-q", "-b", "main", str(src)], ["git", "-C", str(src), "add", "-A"],
                 ["git", "-C", str(src), "commit", "-q", "-m", "data"],
                 ["git", "clone", "-q", "--bare", str(src), str(bare)],
                 ["git", "-C", str(bare), "update-server-info"]):
        subprocess.run(argv, check=True, env=env, capture_output=True)
    commit = subprocess.run(["git", "-C", str(bare), "rev-parse", "HEAD"], check=True, env=env, capture_output=True,
                            text=True).stdout.strip()
    return bare, commit


def tarball(files: dict[str, str], top: str) -> bytes:
    """A .tar.gz of `files` under one top folder (the shape of a GitHub source archive)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
