"""Every text the trainer prints is burn's, on the line it cites, at the commit it cites.

Like a compiler's error index compiling its examples: the burn files cited are
kept under tests/upstream/burn at their commits, and each citation of
trainer/burn/ and of the scenario registry is checked against them.
"""

import re

import pytest

from tests.upstream import sources
from trainer import burn
from trainer.scenarios import SCENARIOS

TEXTS = burn.all_texts()
PANICS = burn.all_panics()
VARIANTS = burn.all_variants()


def _lines(citation: str) -> list[str]:
    """The cited lines; ``path:line@commit`` or ``path:first-last@commit``."""
    match = re.fullmatch(
        r"(?P<path>[^:@]+):(?P<first>\d+)(?:-(?P<last>\d+))?@(?P<commit>\w+)", citation
    )
    assert match, f"not a citation: {citation}"
    first = int(match["first"])
    last = int(match["last"] or first)
    assert first <= last, citation
    return [sources.line(match["commit"], match["path"], n) for n in range(first, last + 1)]


def _literal_value(text) -> str:
    """The cited source, a literal continued over lines read as Rust reads it: a line's
    closing backslash joins the next line less its indent, and ``\\n`` is a newline."""
    source = sources.line(text.commit, text.path, text.line)
    for number in range(text.line + 1, (text.end or text.line) + 1):
        assert source.endswith("\\"), f"{text.citation}: line {number - 1} does not continue"
        source = source[:-1] + sources.line(text.commit, text.path, number).lstrip()
    return source.replace("\\n", "\n")


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.citation)
def test_it_finds_each_text_verbatim_on_its_cited_line(text):
    assert text.format in _literal_value(text)


def test_it_reads_a_continued_literal_as_rust_does():
    banner = burn.PANIC_HOOK["banner"]
    assert banner.end == banner.line + 1
    assert banner.render("/runs/demo/experiment.log") == (
        "=== PANIC ===\n"
        "A fatal error happened, you can check the experiment logs here => "
        "'/runs/demo/experiment.log'\n"
        "============="
    )
    assert banner.citation.endswith(":60-61@" + burn.MAIN)


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.citation)
def test_it_renders_each_text_so_that_its_own_pattern_matches(text):
    values = [f"value {i}" for i in range(text.format.count("{"))]
    rendered = text.render(*values)
    assert re.fullmatch(text.pattern(), rendered)
    assert rendered.startswith(text.literal)
    with pytest.raises(TypeError):
        text.render(*values, "one too many")


@pytest.mark.parametrize("panic", PANICS, ids=lambda p: p.text.citation)
def test_it_reports_each_panic_at_the_column_rust_reports(panic):
    source = sources.line(panic.text.commit, panic.text.path, panic.text.line)
    assert source[panic.column - 1 :].startswith(("expect(", "panic!("))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.citation)
def test_it_names_each_debug_variant_as_its_enum_declares_it(variant):
    source = sources.line(variant.commit, variant.path, variant.line).strip()
    assert source.startswith(f"{variant.name}(")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_it_cites_only_lines_that_exist(scenario):
    for citation in scenario.citations:
        assert _lines(citation), citation


# What each set-up's citations must show for the set-up to be reachable through burn's API.
LOGGER_EVIDENCE = [
    "FileApplicationLoggerInstaller::new(",
    ".install()",
    "std::panic::set_hook(Box::new(move |info| {",
    'log::error!("PANIC => {info}");',
    "hook(info);",
]
SETUP_EVIDENCE = {
    "supervised": [
        *LOGGER_EVIDENCE,
        "AsyncCheckpointer::new",
        "with_interrupter(self.interrupter.clone())",
        "Training interrupted",
    ],
    "supervised-tui": [
        *LOGGER_EVIDENCE,
        "AsyncCheckpointer::new",
        "pub fn checkpoint(mut self, checkpoint: usize) -> Self {",
        "pub fn num_epochs(mut self, num_epochs: usize) -> Self {",
        # launch makes the TUI renderer with the checkpoint when stdout is a terminal
        "default_renderer(self.interrupter.clone(), self.checkpoint)",
        "if std::io::stdout().is_terminal() {",
        '.name("train-renderer".into())',
        "progress: ProgressBarState::new(checkpoint),",
        "starting_epoch: checkpoint.unwrap_or(0),",
        # its hook runs burn's logger's: PANIC => and the banner
        "previous_panic_hook(panic_info);",
        # the epoch it is sent first: the resumed one at main, 1 at 2785abb3
        "let starting_epoch = training_components.checkpoint.unwrap_or(0) + 1;",
        "self.renderer.start(total_epochs, starting_epoch, None);",
        'Progress::new(starting_epoch, total_epochs, Some("epochs".to_string()));',
        "self.renderer.start(total_epochs, None);",
        "self.training_progress.global = Progress::new(1, total_epochs,",
        # each training item's progress reaches the estimate
        "self.renderer.update_split(item.progress.items_processed);",
        "self.progress.update_train(&item);",
        "self.estimate.update(progress, self.starting_epoch);",
        "let epoch = progress.global.items_processed - starting_epoch;",
    ],
    "rl": [
        *LOGGER_EVIDENCE,
        "AsyncCheckpointer::new(checkpointer_policy)",
        "RLCheckpointer::new",
        "Can delete policy checkpoint.",
        "default = 10_000",
        "valid_next += self.config.eval_interval",
        "KeepLastNCheckpoints::new(2)",
        # it resumes: launch restores the policy, then the learning agent, before training
        "pub fn checkpoint(mut self, checkpoint: usize) -> Self {",
        "learner_agent = checkpointer.load_checkpoint(learner_agent, checkpoint);",
        '.expect("Can load learning agent checkpoint.");',
    ],
    "rl-keep-last": [
        *LOGGER_EVIDENCE,
        "AsyncCheckpointer::new(checkpointer_policy)",
        "valid_next += self.config.eval_interval",
        "pub fn with_checkpointing_strategy",
        "actions.push(CheckpointingAction::Delete(epoch))",
    ],
    "hand-built": [
        *LOGGER_EVIDENCE,
        "pub struct LearningCheckpointer",
        "pub fn new(",
        "pub fn new<C>(checkpointer: C)",
        # checkpoint() needs an EventStoreClient: users have one only inside launch
        "epoch: usize, store: &EventStoreClient)",
        "pub(crate) fn new<C>(store: C) -> Self",
        "Custom(CustomLearningStrategy<M>),",
        "pub checkpointer: Option<LearningCheckpointer<M>>,",
        "pub event_store: Arc<EventStoreClient>,",
    ],
    "learner-builder": [
        *LOGGER_EVIDENCE,
        "pub fn with_file_checkpointer",
        "AsyncCheckpointer::new",
        "Can save model checkpoint.",
        "pub type CompactRecorder = DefaultFileRecorder",
        "pub type DefaultFileRecorder<S> = NamedMpkFileRecorder<S>",
        '"mpk"',
        "std::fs::create_dir_all(parent).ok();",
        "std::io::ErrorKind::NotFound => RecorderError::FileNotFound(err.to_string())",
    ],
    "supervised-dispatch": [
        *LOGGER_EVIDENCE,
        "pub fn with_file_checkpointer<FR>(mut self, recorder: FR) -> Self",
        "AsyncCheckpointer::new(checkpointer_model)",
        "pub fn checkpoint(mut self, checkpoint: usize) -> Self {",
        "model.with_interrupter(self.interrupter.clone())",
        "DispatchDevice::autodiff(device)",
        ".with_file_checkpointer(CompactRecorder::new())",
        "pub type CompactRecorder = DefaultFileRecorder<HalfPrecisionSettings>;",
        "pub type DefaultFileRecorder<S> = NamedMpkFileRecorder<S>;",
        '"mpk"',
        # the restore on the default device, which load_record keeps, then the fork
        "ExecutionStrategy::SingleDevice(learner.model.devices()[0].clone())",
        "checkpointer.load_checkpoint(learner, &Default::default(), checkpoint);",
        ".restore(epoch, device)",
        "impl Default for DispatchDevice {",
        "(DispatchDevice::Autodiff(a), b) => a.inner.as_ref() == b,",
        "if new_tensor.device() != expected_device {",
        "learner.fork(&self.device);",
        "self.model = self.model().fork(device);",
        "let mut tensor = tensor.to_device(device).detach();",
        "float_to_device!(",
        "float_to_device_arms,",
        'panic!("Cannot move between autodiff and non-autodiff instances.")',
    ],
    # importing weights: the user's call, and the reader and checks behind it
    "pytorch-store": [
        "pub fn from_file(path: impl Into<PathBuf>) -> Self {",
        "fn load_from<P>(&mut self, store: &mut P) -> Result<ApplyResult, P::Error>",
        "store.apply_to(self)",
        "let reader = self.create_reader()?;",
        "Some(Box::new(PyTorchToBurnAdapter)),",
        "if self.validate && !result.errors.is_empty() {",
        "if !self.allow_partial && !result.missing.is_empty() {",
        "pub fn with_key_remapping(",
        "pub fn with_top_level_key(mut self, key: impl Into<String>) -> Self {",
    ],
    "pytorch-recorder": [
        "impl<PS: PrecisionSettings, B: Backend> Recorder<B> for PyTorchFileRecorder<PS> {",
        "PytorchReader::new(path)?",
        "let (tensors, remapped_keys) = remap(tensors, key_remap);",
        "let deserializer = Deserializer::<PyTorchAdapter<PS, B>>::new(nested_value, true);",
        "burn::record::RecorderError::DeserializeError(error.to_string())",
        ".or_insert(NestedValue::Default(Some(field)));",
        'f.write_str(format!("{self:?}").as_str())',
        "pub fn with_key_remap(mut self, pattern: &str, replacement: &str) -> Self {",
    ],
    "safetensors-recorder": [
        "impl<PS: PrecisionSettings, B: Backend> Recorder<B> for SafetensorsFileRecorder<PS> {",
        "adapter_type: Default::default(),",
        "#[default]",
        "PyTorch,",
        "safetensors::load(path, &Device::Cpu)?",
        "AdapterType::PyTorch => D::deserialize(Deserializer::<PyTorchAdapter<PS, B>>::new(",
        "CandleTensor(#[from] candle_core::Error),",
        "RecorderError::DeserializeError(error.to_string())",
    ],
    "onnx-burnpack-file": [
        "#[derive(Debug, Default)]",
        "embed_states: bool,",
        ".with_burnpack(bpk_file, self.embed_states)",
        "self.register_burnpack_file(burnpack_file);",
        "Self::from_file(#file, &Default::default())",
        "let mut store = BurnpackStore::from_file(file);",
        'model.load_from(&mut store).expect("Failed to load burnpack file");',
        'new_path.set_extension("bpk");',
        "BurnpackReader::from_file(&final_path)?",
        "self.get_all_snapshots()?.values().cloned().collect();",
        "let file = File::open(&path).map_err(|e| BurnpackError::IoError(e.to_string()))?;",
    ],
    "candle-recorder": [
        "let item = from_file::<PS, R::Item<Self::Settings>, B>(&args.file, args.key_remap)?;",
        "pickle::read_all(path)?",
        "CandlePickle(#[from] candle_core::Error),",
        "RecorderError::DeserializeError(error.to_string())",
        'f.write_str(format!("{self:?}").as_str())',
    ],
    "onnx-record-file": [
        "#[derive(Debug, Default)]",
        "embed_states: bool,",
        "#[default]",
        "NamedMpk,",
        '&format!("burn::record::NamedMpkFileRecorder::<{precision_ty_str}>"),',
        "Self::from_file(#file, &Default::default())",
        '.expect("Record file to exist.");',
        '"mpk"',
        "std::io::ErrorKind::NotFound => RecorderError::FileNotFound(err.to_string()),",
    ],
}


@pytest.mark.parametrize("name", sorted(burn.SETUPS))
def test_it_shows_each_set_up_is_reachable_through_burns_public_api(name):
    cited = "\n".join(line for c in burn.SETUPS[name].citations for line in _lines(c))
    for evidence in SETUP_EVIDENCE[name]:
        assert evidence in cited, f"{name}: {evidence!r} is not in its cited lines"


def _cited(setup: str, fragment: str) -> str:
    """The lines of the set-up's citation that names ``fragment`` (a path and lines)."""
    (citation,) = [c for c in burn.SETUPS[setup].citations if fragment in c]
    return "\n".join(_lines(citation))


def test_it_attaches_an_interrupter_only_where_burn_does():
    launch = _cited("supervised", "supervised/paradigm.rs:378-385")
    assert launch.count(".with_interrupter(") == 3
    rl = _cited("rl", "rl/paradigm.rs:288-303")
    assert "with_interrupter" not in rl
    async_19 = "\n".join(
        sources.source_lines("v0.19.1", burn.TRAIN + "/checkpoint/async_checkpoint.rs")
    )
    assert "interrupter" not in async_19.lower()


def test_it_holds_only_async_checkpointers_in_the_learner_on_main():
    fields = _lines(f"{burn.TRAIN}/learner/base.rs:134-136@main")
    assert all(": AsyncCheckpointer<" in field for field in fields)
    save = _lines(f"{burn.TRAIN}/checkpoint/async_checkpoint.rs:115-121@main")
    assert "Ok(())" in "\n".join(save)  # save returns Ok, or panics itself on line 118


def test_it_documents_only_messages_that_are_burns_texts():
    # ... or Rust's own, which burn's lines raise (an overflow in the TUI's estimate)
    formats = {text.format for text in TEXTS} | set(burn.OVERFLOW.values())
    for scenario in SCENARIOS:
        for message in scenario.proves + scenario.disproves:
            assert message in formats, (scenario.name, message)


def test_it_never_proves_a_can_save_checkpoint_message():
    saves = {
        p.text.format for key, p in {**burn.LEARNER, **burn.LEARNER_19}.items() if key[0] == "save"
    }
    for scenario in SCENARIOS:
        assert not saves & set(scenario.proves), scenario.name
    disproved = {m for s in SCENARIOS for m in s.disproves}
    assert {p.text.format for k, p in burn.LEARNER.items() if k[0] == "save"} <= disproved


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_it_builds_every_expected_text_from_cited_burn_texts(scenario):
    cited = {c for e in scenario.expected for c in e.cites}
    known = {t.citation for t in TEXTS} | {v.citation for v in VARIANTS}
    assert cited <= known, cited - known
    assert scenario.release in burn.RELEASES
    for expect in scenario.expected:
        re.compile(expect.pattern)


def test_it_installs_the_logger_before_the_launcher_restores_or_trains():
    install = _cited("supervised", "supervised/paradigm.rs:355-359")
    assert "self.tracing_logger.as_ref().unwrap().install()" in install
    restore = _lines(f"{burn.TRAIN}/learner/supervised/paradigm.rs:417-420@main")
    assert "load_checkpoint(learner, checkpoint)" in "\n".join(restore)
    assert "install()" in _cited("rl", "rl/paradigm.rs:325-329")
    assert "install()" in _cited("learner-builder", "builder.rs:350-354")


def test_it_checks_the_interrupter_after_each_item_as_burn_does():
    train = _lines(f"{burn.TRAIN}/learner/supervised/strategies/single/epoch.rs:96-138@main")
    step = next(i for i, line in enumerate(train) if "learner.train_step(item)" in line)
    check = next(i for i, line in enumerate(train) if "interrupter.should_stop()" in line)
    assert step < check


def test_it_keeps_the_earlier_reason_when_stop_has_none():
    stop = "\n".join(_lines(f"{burn.TRAIN}/learner/base.rs:238-244@main"))
    assert "reason.inspect(|r| {" in stop  # only Some(reason) replaces the message


def test_it_reads_a_record_in_the_order_and_with_the_checks_of_burn_pack():
    reader = "crates/burn-pack/src/reader.rs"
    assert "path.extension().is_none() && !path.exists()" in sources.line("main", reader, 63)
    assert "file.read_exact(&mut header_bytes)" in sources.line("main", reader, 79)
    assert "file.read_exact(&mut metadata_bytes)" in sources.line("main", reader, 83)
    assert "header.version > FORMAT_VERSION" in sources.line("main", reader, 242)
    assert "MetadataDeserializationError" in sources.line("main", reader, 258)


@pytest.mark.parametrize("panic", burn.all_macro_panics(), ids=lambda p: p.text.citation)
def test_it_reports_a_panic_inside_a_macro_at_the_macros_call(panic):
    """Rust reports a panic! expanded from a macro_rules! macro at the outermost call."""
    assert f'panic!("{panic.text.format}")' in sources.line(
        panic.text.commit, panic.text.path, panic.text.line
    )
    call = sources.line(panic.call.commit, panic.call.path, panic.call.line)
    assert call[panic.column - 1 :].startswith(panic.call.format)
    assert call[: panic.column - 1].strip() == ""  # the call is a statement of its own
    assert panic.location == f"{panic.call.path}:{panic.call.line}:{panic.column}"


def test_it_finds_dispatchs_default_device_never_autodiff_at_0_21():
    default = _lines(f"crates/burn-dispatch/src/device.rs:147-181@{burn.V0_21_0}")
    returns = [line.strip() for line in default if line.strip().startswith("return ")]
    assert returns and not any("Autodiff" in line for line in returns)
    # float_to_device! expands to the arms whose catch-all panics (macros.rs:260-263, 187-231)
    macro = _lines(f"crates/burn-dispatch/src/macros.rs:260-263@{burn.V0_21_0}")
    assert "macro_rules! float_to_device {" in macro[0] and "float_to_device_arms," in macro[3]


def test_it_restores_on_the_training_device_where_burn_fixed_it():
    """tracel-ai/burn#5084 (0.22.0-pre.1): main's launch restores before the strategy, onto
    the learner's parameters' device; 0.21's strategy restored on `Default::default()`."""
    fixed = "\n".join(_lines(f"{burn.TRAIN}/learner/supervised/paradigm.rs:416-421@main"))
    assert "learner = checkpointer.load_checkpoint(learner, checkpoint);" in fixed
    broken = "\n".join(
        _lines(f"{burn.TRAIN}/learner/supervised/strategies/base.rs:175-184@{burn.V0_21_0}")
    )
    assert "&Default::default()" in broken
