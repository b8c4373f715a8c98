"""A project notebook over a folder, as third-party servers are written: no ``gym_mcp/*`` metadata.

One folder a project, files in each; tools take a project's *name* and a file's *name*, not a
path. ``stage_file`` records a file in ``.staged`` (a part the spec leaves out of fingerprints,
as git's index is) and ``commit_staged`` moves what is staged into the project's ``log.md``: a
staging write changes nothing a judge sees unless a commit follows. ``refresh_cache`` writes only
``.cache``: it never changes what a judge sees.

Run: ``python project_folders.py ROOT`` (stdio). ``--seed ROOT`` writes the seed folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

SEED = {
    "apollo/brief.md": "# Apollo\nTelemetry dashboard.\n",
    "apollo/progress.md": "- ingest done\n",
    "hermes/brief.md": "# Hermes\nCourier tracking.\n",
    "hermes/context.md": "Route planner next.\n",
    "zephyr/brief.md": "# Zephyr\nWeather stations.\n",
}


def seed(root: str) -> None:
    """Write the seed folder."""
    for rel, text in SEED.items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def build(root: str) -> MCPServer:
    """The server over the folder ``root``."""
    server = MCPServer("project-folders")
    base = Path(root)

    def project(name: str) -> Path:
        path = base / name
        if not path.is_dir() or name.startswith("."):
            raise ToolError(f"no project {name!r}")
        return path

    @server.tool()
    def list_project_files(projectName: str) -> list[str]:
        """List the files of a project."""
        return sorted(p.name for p in project(projectName).iterdir() if p.is_file())

    @server.tool()
    def project_file_read(projectName: str, fileName: str) -> str:
        """Read a file of a project."""
        path = project(projectName) / fileName
        if not path.is_file():
            raise ToolError(f"no file {fileName!r} in {projectName!r}")
        return path.read_text()

    @server.tool()
    def project_file_write(projectName: str, fileName: str, content: str) -> str:
        """Create a new file for a specific project."""
        path = project(projectName) / fileName
        if path.exists():
            raise ToolError(f"{fileName!r} exists in {projectName!r}")
        path.write_text(content)
        return f"wrote {projectName}/{fileName}"

    @server.tool()
    def stage_file(projectName: str, fileName: str) -> str:
        """Stage a file of a project for the next commit."""
        if not (project(projectName) / fileName).is_file():
            raise ToolError(f"no file {fileName!r} in {projectName!r}")
        with (base / ".staged").open("a") as f:
            f.write(f"{projectName}/{fileName}\n")
        return "staged"

    @server.tool()
    def commit_staged(message: str) -> str:
        """Commit what is staged: each staged file is listed in its project's log.md."""
        staged = base / ".staged"
        lines = staged.read_text().split() if staged.exists() else []
        if not lines:
            raise ToolError("nothing staged; stage_file first")
        for line in lines:
            name, _, file = line.partition("/")
            with (base / name / "log.md").open("a") as f:
                f.write(f"- {message}: {file}\n")
        staged.unlink()
        return f"committed {len(lines)} file(s)"

    @server.tool()
    def refresh_cache() -> str:
        """Rebuild the project cache."""
        (base / ".cache").write_text("\n".join(sorted(p.name for p in base.iterdir() if p.is_dir())))
        return "cache rebuilt"

    return server


def main() -> None:
    """``project_folders.py ROOT`` serves over stdio; ``--seed ROOT`` writes the seed folder."""
    if sys.argv[1] == "--seed":
        seed(sys.argv[2])
        return
    build(sys.argv[1]).run()


if __name__ == "__main__":
    main()
