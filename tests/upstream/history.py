"""A repository with a short history, built for the scanner's tests.

v0.1.0  src/learner.rs raises "Can save model checkpoint." (expect, line 4) and
        "Error when loading the state: {err}" (panic! in unwrap_or_else, line 8) and logs
        "Training interrupted: {reason}" (a form the scanner does not read, line 10);
        py/tool.py raises ValueError(f"negative input: {x!r}") (line 3).
v0.2.0  three lines above move the Rust sites down: lines 7 and 11.
v0.3.0  the panic is reworded to "Cannot load the state: {err}"; py/tool.py moves to
        py/tools/run.py unchanged.
main    (no tag) the Python raise is removed.
"""

from dataclasses import dataclass

from .gitrepo import GitRepo

LEARNER = """\
pub fn save(model: &Model) {
    model
        .save()
        .expect("Can save model checkpoint.");
}

pub fn load(path: &str) -> Model {
    Model::load(path).unwrap_or_else(|err| panic!("Error when loading the state: {err}"))
}
pub fn stop(reason: &str) { log::info!("Training interrupted: {reason}"); }
"""
HEADER = "//! The learner.\n\nuse crate::Model;\n"
TOOL = """\
def run(x):
    if x < 0:
        raise ValueError(f"negative input: {x!r}")
    return x
"""

SAVE = "Can save model checkpoint."
LOAD = "Error when loading the state: {err}"
REWORDED = "Cannot load the state: {err}"
NEGATIVE = "negative input: {x!r}"
LOGGED = "Training interrupted: {reason}"
REPO = "acme/rocket"


@dataclass
class History:
    repo: GitRepo
    c1: str
    c2: str
    c3: str
    c4: str


def build_history(path) -> History:
    repo = GitRepo(path)
    repo.write("src/learner.rs", LEARNER)
    repo.write("py/tool.py", TOOL)
    repo.write("README.md", "rocket\n")
    c1 = repo.commit("first", tag="v0.1.0")
    repo.write("src/learner.rs", HEADER + LEARNER)
    c2 = repo.commit("header", tag="v0.2.0")
    repo.write("src/learner.rs", HEADER + LEARNER.replace(LOAD, REWORDED))
    repo.remove("py/tool.py")
    repo.write("py/tools/run.py", TOOL)
    c3 = repo.commit("reword and move", tag="v0.3.0")
    repo.write(
        "py/tools/run.py", TOOL.replace('raise ValueError(f"negative input: {x!r}")', "x = 0")
    )
    c4 = repo.commit("no raise")
    return History(repo, c1, c2, c3, c4)
