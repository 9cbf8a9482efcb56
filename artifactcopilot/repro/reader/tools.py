"""Tables of command-line tools by what they do to the values they read, and their argument shapes.

Display tools show stored values (cat, head, sed, grep, jq, column); they derive new values only in
some forms (`awk '{s+=$2} END {print s/NR}'`, `wc -l`, `uniq -c`, `jq 'add/length'`). Copy tools
move files. Paper tools extract text from a PDF. Wrappers (docker, conda run, timeout, env) run
another command, which is what matters.
"""
from __future__ import annotations

import re

NEUTRAL = {"cd", "pushd", "popd", "mkdir", "rm", "rmdir", "touch", "chmod", "chown", "export", "set", "unset", "source",
           ".", "ls", "pwd", "sleep", "true", "false", ":", "wait", "exit", "return", "trap", "shift", "read", "test",
           "[", "[[", "which", "type", "ulimit", "alias", "date", "nproc", "hostname", "whoami", "sync", "clear",
           "umask", "declare", "local", "readonly", "shopt", "hash", "history", "printenv", "uname", "df", "du", "free",
           "id", "git", "apt", "apt-get", "yum", "dnf", "brew", "apk", "pip", "pip3", "conda", "mamba", "micromamba",
           "virtualenv", "deactivate", "activate", "nvidia-smi", "lscpu", "basename", "dirname",
           "realpath", "readlink", "mktemp", "seq", "kill", "pkill", "ps", "top", "getconf", "locale", "tput", "stty",
           "logger", "ldconfig", "update-alternatives", "ssh-keygen", "cmake", "autoreconf", "configure", "ninja",
           "rustup", "opam", "sdk", "jenv", "pyenv", "nvm", "sha256sum", "md5sum", "shasum", "file", "stat", "find",
           "disown", "bg", "fg", "jobs", "let", "eval", "exec", "newgrp", "chgrp", "setfacl", "tlmgr", "cpanm", "gem",
           "go-get", "dpkg", "snap", "flatpak", "add-apt-repository", "gpg", "wget-ssl", "module", "ml", "spack",
           "install2.r", "installGithub.r", "install.r"}
DISPLAY = {"cat", "tac", "head", "tail", "less", "more", "nl", "column", "sed", "awk", "gawk", "mawk", "nawk", "grep",
           "egrep", "fgrep", "rg", "ag", "cut", "sort", "uniq", "tr", "paste", "join", "fold", "fmt", "pr", "expand",
           "unexpand", "iconv", "jq", "yq", "xq", "xmllint", "csvlook", "csvcut", "csvgrep", "csvsort", "csvjson",
           "csvformat", "in2csv", "mlr", "xsv", "qsv", "bat", "batcat", "od", "xxd", "hexdump", "strings", "wc",
           "diff", "cmp", "zcat", "gzcat", "bzcat", "xzcat", "zless", "zmore", "zgrep", "csvstat", "datamash", "bc",
           "dc", "sqlite3", "duckdb", "tabview", "vd", "visidata", "rev", "shuf", "envsubst", "numfmt", "glow", "mdcat",
           "pandoc", "textql", "q", "pv", "dos2unix", "unix2dos", "sponge", "h5dump", "h5ls", "ncdump", "parquet-tools",
           "pqrs", "xlsx2csv", "ssconvert", "libreoffice", "soffice", "unoconv", "base64", "base32", "basenc",
           "uudecode", "openssl", "recode", "plutil"}
# Clients of database servers: a query shows or aggregates what the database stores.
SQL_CLIENTS = {"psql", "mysql", "mariadb", "clickhouse-client", "sqlcmd", "cqlsh", "mongosh", "mongo"}
SQL_DB_OPTS = {"-d", "--dbname", "-D", "--database"}
COPY = {"cp", "mv", "rsync", "install", "ln", "dd", "scp", "gcp"}
UNPACK = {"tar", "unzip", "gunzip", "bunzip2", "unxz", "7z", "7za", "unrar", "zstd", "unzstd", "gzip", "bzip2", "xz"}
FETCH = {"wget", "curl", "gdown", "zenodo_get", "aria2c", "axel", "http", "https", "gsutil", "aws", "rclone",
         "huggingface-cli", "kaggle", "dvc", "git-lfs"}
PAPER = {"pdftotext", "pdf2txt", "pdf2txt.py", "pdftohtml", "pdftoppm", "mutool", "pdfplumber", "pdfminer", "tika",
         "tika-app", "detex", "pdfgrep", "ps2ascii", "ocrmypdf", "tabula", "camelot", "pdfx", "pdfcpu", "pdftk",
         "docling", "marker", "marker_single", "nougat", "pymupdf", "pdf2md", "pdfinfo", "qpdf", "pdf2image", "mineru"}
PAPER_LIBS = {"pypdf", "PyPDF2", "PyPDF4", "pypdfium2", "pdfplumber", "fitz", "pymupdf", "pymupdf4llm", "pdfminer",
              "camelot", "tabula", "pdftotext", "tika", "pdf2image", "pytesseract", "docling", "marker", "nougat",
              "pikepdf", "borb", "pdfreader", "slate3k", "textract", "llama_parse", "unstructured", "pdfx", "PDFMiner",
              "pdftools", "tabulizer", "pdfquery", "easyocr", "mineru", "magic_pdf"}
INTERPRETERS = {"python", "python2", "python3", "pypy", "pypy3", "ipython", "ipython3", "Rscript", "R", "julia", "perl",
                "ruby", "node", "nodejs", "bash", "sh", "zsh", "dash", "ksh", "octave", "matlab", "stata", "gnuplot",
                "php", "lua", "groovy", "kotlin", "scala", "java", "deno", "bun", "tclsh", "swift", "ocaml", "racket",
                "runghc", "runhaskell", "sage", "maxima", "pwsh", "Rscript.exe"}
BUILD_RUNNERS = {"mvn", "gradle", "gradlew", "./gradlew", "./mvnw", "sbt", "ant", "lein", "cargo", "go", "dune",
                 "stack", "cabal", "dotnet", "swift", "mix", "bazel", "buck", "npx", "snakemake", "nextflow", "luigi",
                 "pytest", "tox", "nox", "invoke", "inv", "just", "rake", "scons", "ctest", "dvc", "npm", "yarn",
                 "pnpm"}
SIMPLE_WRAPPERS = {"sudo", "time", "/usr/bin/time", "nice", "nohup", "ionice", "exec", "command", "builtin", "chronic",
                   "unbuffer", "caffeinate", "xvfb-run", "stdbuf", "numactl", "taskset", "valgrind", "strace", "perf",
                   "hyperfine", "catchsegv", "setsid", "faketime", "script", "ltrace", "firejail", "cgexec",
                   "systemd-run", "then", "do", "else", "elif", "!"}
RUNNER_WRAPPERS = {"poetry": ("run",), "uv": ("run",), "pipenv": ("run",), "pdm": ("run",), "hatch": ("run",),
                   "conda": ("run",), "mamba": ("run",), "micromamba": ("run",), "pixi": ("run",), "rye": ("run",),
                   "nix-shell": (), "nix": ("develop", "shell", "run"), "guix": ("shell",), "pipx": ("run",)}
CONTAINERS = {"docker", "podman", "nerdctl", "docker-compose", "podman-compose", "singularity", "apptainer", "enroot",
              "charliecloud", "ch-run", "udocker", "srun", "mpirun", "mpiexec", "parallel", "xargs", "env", "timeout",
              "gtimeout"}
# What a container runs when the script names no command: `docker compose up` runs the services, `docker run IMAGE`
# the image's own entry point (the artifact's program, as its authors set it up).
CONTAINER_ENTRIES = {"docker-compose-up", "image-entrypoint"}

# Reproduction frameworks' own subcommands (Artisan §2.4): `format` fills an obfuscated table (the masked template,
# which gives no values) from execution output (which gives them all); `get` downloads the artifact itself.
FRAMEWORK_TOOLS = {"artisan": {"format": "format", "get": "fetch-artifact"},
                   "copilot": {"format": "format"}}
FORMAT_TEMPLATE_OPTS = {"--expected", "--template", "--table", "-e", "-t"}
FORMAT_OUTPUT_OPTS = {"--repro", "--output-file", "--execution-output", "--outputs", "--input", "-r", "-i"}
# A here-document holding an obfuscated table (`| ?.?? |`): digits the template shows are given, not results.
MASKED = re.compile(r"\?+(?:\.\?+)?%?\s*\|")

# Statistical tests and models fitted on the study's data are the experiment of an empirical study, not a last mile.
STATISTICS = re.compile(r"\b(wilcox|chisq|cor|kruskal|fisher|shapiro|binom|prop|mcnemar|friedman)\.test\b|\bt\.test\b|"
                        r"\b(lm|glm|glmer|lmer|glmmTMB|aov|anova|coxph|mixedlm|ols|logit|mannwhitneyu|wilcoxon|"
                        r"ttest_\w+|pearsonr|spearmanr|kendalltau|kruskal|chi2_contingency|cliffs?_delta|vargha\w*)\s*\(")

# Packages for fitting statistical models (mixed models, Bayesian regressions, structural equations): an analysis
# run after the script installs them fits the study's models.
MODEL_PACKAGES = re.compile(r"\b(lme4|lmerTest|nlme|glmmTMB|MuMIn|brms|rstanarm|lavaan|semopy|linearmodels|pymer4|"
                            r"bambi)\b")

# Options that take a value, per wrapper (to find where the wrapped command starts).
VALUE_OPTS = {
    "docker": {"-v", "--volume", "-w", "--workdir", "-e", "--env", "--env-file", "--name", "-p", "--publish",
               "--entrypoint", "-u", "--user", "--network", "--net", "--gpus", "--shm-size", "-m", "--memory", "--cpus",
               "--mount", "--platform", "--cpuset-cpus", "--ulimit", "-h", "--hostname", "--add-host", "--label", "-l",
               "--runtime", "--cap-add", "--cap-drop", "--security-opt", "--device", "--ipc", "--pid", "--memory-swap",
               "--tmpfs", "--log-driver", "--restart", "--stop-timeout", "--cidfile", "--group-add", "--dns",
               "--expose", "-f", "--file", "--project-name", "--profile", "--project-directory", "--detach-keys"},
    "singularity": {"-B", "--bind", "--pwd", "-H", "--home", "--env", "--overlay", "-W", "--workdir", "--env-file"},
    "srun": {"-n", "-N", "-c", "-p", "-t", "--time", "--mem", "-A", "--account", "--partition", "--gres", "-J",
             "--job-name", "-o", "-e", "--ntasks", "--cpus-per-task", "--nodes", "--qos"},
    "mpirun": {"-np", "-n", "-N", "--host", "-H", "--hostfile", "-x", "--map-by", "--bind-to", "-ppn", "--npernode"},
    "conda": {"-n", "--name", "-p", "--prefix", "--cwd"},
    "uv": {"--with", "--python", "-p", "--project", "--directory", "--extra", "--group", "--env-file", "--index-url"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p"},
    "stdbuf": {"-i", "-o", "-e"},
    "/usr/bin/time": {"-o", "--output", "-f", "--format"},
    "xvfb-run": {"-n", "-s", "--server-args", "-e", "-f"},
    "numactl": {"-C", "-N", "-m", "--cpunodebind", "--membind", "--physcpubind", "--interleave"},
    "xargs": {"-n", "-P", "-I", "-L", "-d", "-E", "-s", "-a", "--max-procs", "--max-args", "--delimiter", "--arg-file"},
    "parallel": {"-j", "--jobs", "-N", "--joblog", "--results", "-S", "--sshlogin", "--delay", "--timeout"},
    "hyperfine": {"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M", "--max-runs", "--export-json",
                  "--export-markdown", "--export-csv", "-p", "--prepare"},
    "perf": {"-e", "-o", "-p", "-r", "--repeat", "-F"},
}
VALUE_OPTS["podman"] = VALUE_OPTS["nerdctl"] = VALUE_OPTS["docker-compose"] = VALUE_OPTS["docker"]
VALUE_OPTS["podman-compose"] = VALUE_OPTS["docker"]
VALUE_OPTS["apptainer"] = VALUE_OPTS["singularity"]
VALUE_OPTS["mpiexec"] = VALUE_OPTS["mpirun"]
VALUE_OPTS["mamba"] = VALUE_OPTS["micromamba"] = VALUE_OPTS["conda"]
VALUE_OPTS["gtimeout"] = VALUE_OPTS["timeout"]

# Options of any program whose value is a path it writes.
OUTPUT_OPTS = re.compile(r"^--?(o|out|output|outputs|out[-_]?dir|output[-_]?dir|output[-_]?file|out[-_]?file|outfile|"
                         r"outdir|save|save[-_]?dir|save[-_]?path|save[-_]?to|dest|destination|target[-_]?dir|dump|"
                         r"export|write|logs|log[-_]?dir|logdir|log[-_]?file|results?[-_]?dir|results?[-_]?path|"
                         r"results?[-_]?file|report|csv|json[-_]?out|plot[-_]?dir|fig[-_]?dir|prefix|workdir|"
                         r"work[-_]?dir|exp[-_]?dir|run[-_]?dir|checkpoint[-_]?dir|ckpt[-_]?dir|model[-_]?dir)$",
                         re.IGNORECASE)
# Of those, the ones an aggregation step reads rather than writes (`summarize.py --results-dir results/raw`).
INPUT_LIKE_OUTPUT_OPTS = re.compile(r"^--?(results?[-_]?(dir|path|file)|logs|log[-_]?dir|logdir|exp[-_]?dir|"
                                    r"run[-_]?dir|workdir|work[-_]?dir|prefix|checkpoint[-_]?dir|ckpt[-_]?dir|"
                                    r"model[-_]?dir)$", re.IGNORECASE)
# Of those, the ones named by a file format (`-csv f`): an input as often as an output. Read as the program's input
# when the script keeps what the program prints (its stdout, redirected or piped), or the artifact holds the file.
FORMAT_NAMED_OPTS = re.compile(r"^--?(csv|tsv|json|xml)$", re.IGNORECASE)
# Display-tool options that take a value (so the value is not read as a file).
TOOL_VALUE_OPTS = {"head": {"-n", "-c"}, "tail": {"-n", "-c"}, "cut": {"-d", "-f", "-c", "-b"},
                   "sort": {"-k", "-t", "-o", "-S", "-T"}, "column": {"-s", "-t", "-o", "-c", "-N", "-R"},
                   "grep": {"-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude"}, "sed": {"-e", "-f"},
                   "awk": {"-F", "-v", "-f"}, "gawk": {"-F", "-v", "-f"}, "jq": {"--arg", "--argjson", "--slurpfile",
                                                                                   "--rawfile", "-f"},
                   "uniq": {"-f", "-s", "-w"}, "tr": set(), "paste": {"-d"}, "join": {"-t", "-1", "-2", "-o"},
                   "pr": {"-w", "-l"}, "fold": {"-w"}, "nl": {"-w", "-s", "-b"}, "xxd": {"-l", "-s", "-c"},
                   "od": {"-A", "-t", "-N", "-j"}, "datamash": {"-t", "-g"}, "mlr": {"--ifs", "--ofs", "--from"},
                   "csvcut": {"-c", "-C", "-d"}, "csvstat": {"-c", "-d"}, "pandoc": {"-f", "-t", "--from", "--to"}}
# Tools whose first non-option word is a program or pattern, not a file.
PROGRAM_FIRST = {"sed", "awk", "gawk", "mawk", "nawk", "grep", "egrep", "fgrep", "rg", "ag", "jq", "yq", "xq", "zgrep",
                 "tr", "datamash", "mlr", "q", "textql", "envsubst"}

_AWK_ARITH = re.compile(r"\+=|-=|\*=|/=|\+\+|\bNR\b\s*[-+*/)]|[-+*/]\s*\bNR\b|\bsum\b|\btotal\b|\bavg\b|\bmean\b|"
                        r"\bsqrt\b|\blog\b|\bexp\b|\$\w+\s*[-+*/]\s*(\$\w+|[A-Za-z_]\w*)|\bcount\b|"
                        r"[-+/]\s*\$\w+")
# (`$3/$2`, `$2*100/$3` and `$2/total` compute new values; `$2*100` only rescales a stored one: reformatting)
_JQ_ARITH = re.compile(r"\badd\b|\blength\b|\bmin\b|\bmax\b|\bgroup_by\b|\breduce\b|[^/]\s/\s|\*|\bmap_values\b|"
                       r"\bsqrt\b|\bavg\b|\bfloor\b|\bceil\b|\bunique\b|\bcount\b")
_SQL_AGG = re.compile(r"\b(avg|sum|count|min|max|stddev|median|group\s+by|total)\b", re.IGNORECASE)


def derives(tool: str, argv: list[str]) -> bool:
    """True when this display-tool call computes new values (sums, means, counts) rather than showing stored ones."""
    program = next((a for a in argv[1:] if not a.startswith("-")), "")
    if tool in ("awk", "gawk", "mawk", "nawk"):
        return bool(_AWK_ARITH.search(program))
    if tool in ("jq", "yq"):
        return bool(_JQ_ARITH.search(program))
    if tool in ("sqlite3", "duckdb", "q", "textql") or tool in SQL_CLIENTS:
        return any(_SQL_AGG.search(a) for a in argv[1:])
    if tool in ("wc", "csvstat", "datamash", "bc", "dc"):
        return True
    if tool in ("uniq",):
        return "-c" in argv or "--count" in argv
    if tool in ("grep", "egrep", "fgrep", "rg", "zgrep"):
        return any(a in ("-c", "--count") or (a.startswith("-") and not a.startswith("--") and "c" in a)
                   for a in argv[1:])
    if tool == "mlr":
        return any(a in ("stats1", "stats2", "count", "count-distinct", "merge-fields", "step", "top") for a in argv)
    return False


def base(program: str) -> str:
    """The command name without its folder (`/usr/bin/python3.11` -> python3)."""
    name = program.rsplit("/", 1)[-1]
    m = re.fullmatch(r"(python|pypy|ipython)(\d+(\.\d+)*)?", name)
    if m:
        return "python3" if m.group(1) == "python" else m.group(1)
    return name


_AWK_GROUPS = re.compile(r"\w+\[[^\]]*\$\w+[^\]]*\]\s*(\+\+|\+=)|[/(]\s*\bNR\b|\bNR\s*[-)]|\bcount\b|\bn\s*\+\+|"
                         r"\bavg\b|\bmean\b|\blength\(")
_JQ_GROUPS = re.compile(r"\bgroup_by\b|\blength\b|\bunique\b|\bcount\b|\bavg\b|\bmap_values\b|\breduce\b")
_SQL_GROUPS = re.compile(r"\b(avg|count|stddev|median|group\s+by)\b", re.IGNORECASE)


def derive_ops(tool: str, argv: list[str]) -> list[str]:
    """What a deriving tool call does to the values it reads: `count` when it counts, groups or averages records
    (so its input holds records, one per item), `total` when it sums a column, `arithmetic` for values computed
    row by row (ratios, percentages, rescaling)."""
    program = " ".join(a for a in argv[1:] if not a.startswith("-"))
    if tool in ("awk", "gawk", "mawk", "nawk"):
        if _AWK_GROUPS.search(program):
            return ["count"]
        return ["total"] if re.search(r"\w+\s*\+=\s*\$\w+", program) else ["arithmetic"]
    if tool in ("jq", "yq"):
        return ["count"] if _JQ_GROUPS.search(program) else ["total"] if re.search(r"\badd\b", program) else \
            ["arithmetic"]
    if tool in ("sqlite3", "duckdb", "q", "textql") or tool in SQL_CLIENTS:
        return ["count"] if _SQL_GROUPS.search(program) else ["total"]
    if tool in ("bc", "dc"):
        return ["arithmetic"]
    return ["count"]  # wc, uniq -c, grep -c, datamash, csvstat, mlr stats
