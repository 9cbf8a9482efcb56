"""Outputs in the Python reader: print and logging, writes (to_csv, json.dump, np.save, savefig, handle.write)
and plots (collected until a savefig or show writes the figure)."""
from __future__ import annotations

from .pyvalues import EMPTY, PLOTS, PRINTS, WRITERS, Val, union

PATH_KEYWORDS = ("path", "path_or_buf", "filepath_or_buffer", "fname", "file", "filename", "buf", "excel_writer", "io",
            "filepath", "f", "output", "outfile", "out", "dest")


class Outputs:
    """Methods of Calls (a mixin: `self.r` is the reader)."""

    def _print(self, node, q, last, recv, args, kwargs):
        if q in ("print", "pprint.pprint", "pprint", "display", "IPython.display.display", "sys.stdout.write",
                 "rich.print", "click.echo", "tqdm.write", "tqdm.tqdm.write") or (
                last in PRINTS and self.module_of(q) in ("logging", "rich", "click", "IPython", "typer", "loguru",
                                                         "pprint", "tqdm")) or (
                last in ("info", "warning", "debug", "log") and recv is not None
                and (recv.qual or "").startswith("logging")):
            target = kwargs.get("file")
            writes = [target.write] if target is not None and target.write else []
            self.r.sink(node, args, writes=writes, stdout=not writes, how=q)
            return EMPTY
        if last in ("write", "writelines", "writerow", "writerows") and recv is not None and recv.write:
            self.r.sink(node, args, writes=[recv.write], how=f"writes {recv.write}")
            return EMPTY
        if last in ("write",) and recv is not None and (recv.qual or "") in ("sys.stdout", "sys.stderr"):
            self.r.sink(node, args, stdout=True, how="sys.stdout.write")
            return EMPTY
        return None

    def _plot(self, node, q, last, recv, args, kwargs):
        top = self.module_of(q)
        if last not in PLOTS or not (top in ("matplotlib", "seaborn", "plotly", "pandas", "bokeh", "altair", "plotnine")
                                     or recv is not None):
            return None
        if last == "table" and top not in ("matplotlib",) and recv is None:
            return None
        data = recv if recv is not None and any(o.kind not in ("literal", "text") for o in recv.origins) else EMPTY
        self.r.plot = union(self.r.plot, data, *args, *kwargs.values()).derive("plotted")  # df.plot(), not ax.plot()
        return Val(qual=f"{q}()")

    def _write(self, node, q, last, recv, args, kwargs):
        if last not in WRITERS and last not in ("show",):
            return None
        top = self.module_of(q)
        if last == "show" and (top in ("matplotlib", "plt", "seaborn") or "figure" in (q or "")
                               or q.endswith("plt.show")):
            self.r.sink(node, [self.r.plot], writes=["<figure>"], how="shows a figure")
            return EMPTY
        if last == "show":
            return None
        if last in ("dumps", "to_string") or (last in ("to_markdown", "to_latex", "to_html", "to_csv", "to_json")
                                               and not args and not any(k in kwargs for k in PATH_KEYWORDS)):
            return Val((recv or EMPTY).origins | union(*args).origins)  # returns the text: reformatting
        if last == "savefig" or last == "save_fig":
            target = args[0] if args else next((kwargs[k] for k in ("fname", "path") if k in kwargs), None)
            path = target.path if target is not None and target.path else "?"
            self.r.sink(node, [self.r.plot, recv or EMPTY], writes=[path], how=f"saves a figure ({last})")
            return EMPTY
        if top in ("numpy", "torch", "joblib", "scipy") or last in ("savetxt", "savez", "savez_compressed", "imsave"):
            numpy_save = top in ("numpy",) and last in ("save", "savetxt", "savez", "savez_compressed")
            data, target = (args[1:2], args[0]) if numpy_save else (args[:1], args[1] if len(args) > 1 else None)
        elif top in ("pickle", "json", "yaml", "dill", "cloudpickle", "marshal", "toml", "msgpack"):
            data, target = args[:1], (args[1] if len(args) > 1 else kwargs.get("fp") or kwargs.get("file"))
        elif recv is not None:
            data, target = [recv], (args[0] if args else next((kwargs[k] for k in PATH_KEYWORDS if k in kwargs), None))
        else:
            return None
        if target is None:
            return None
        path = target.write or target.path or "?"
        self.r.sink(node, list(data), writes=[path], how=f"{last} to {path}")
        return EMPTY
