"""The scoring rules of training.photo.evaluate, with a fake reader (no model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.photo.evaluate import evaluate_manifest


class _Det:
    def __init__(self, label, box, kind="card_face"):
        self.label, self.box, self.confidence, self.kind = label, box, 0.9, kind


class FakeReader:
    def __init__(self, answers):
        self.answers = answers

    def read(self, path):
        return self.answers[Path(path).name]


def _manifest(tmp_path: Path, rows: list[str]) -> Path:
    p = tmp_path / "manifest.csv"
    p.write_text("image,label,x1,y1,x2,y2\r\n" + "\r\n".join(rows) + "\r\n")
    return p


def test_scores_boxes_backs_chips_jokers_and_false_cards(tmp_path):
    m = _manifest(
        tmp_path,
        [
            "images/a.jpg,AS,0,0,100,150",
            "images/a.jpg,10H,200,0,300,150",
            "images/a.jpg,BACK,400,0,500,150",
            "images/a.jpg,JOKER,0,300,100,450",
            "images/b.jpg,K?,0,0,100,150",
            "images/b.jpg,CHIP-RED,300,300,340,340",
        ],
    )
    reader = FakeReader(
        {
            "a.jpg": [
                _Det("AS", (2, 2, 100, 148)),  # right
                _Det("10D", (205, 0, 300, 150)),  # rank right, suit wrong
                _Det("BACK", (400, 5, 500, 150), "card_back"),
                _Det("QH", (0, 300, 100, 450)),  # on the joker: ignored, not false
                _Det("2C", (600, 600, 640, 640)),  # false card
            ],
            "b.jpg": [_Det("KD", (0, 0, 100, 150)), _Det("CHIP", (300, 300, 341, 341), "chip")],
        }
    )
    r = evaluate_manifest(m, reader=reader)
    assert r["images"] == 2
    assert r["card_accuracy"] == pytest.approx(2 / 3, abs=1e-3)  # AS, K? (rank only); 10H wrong
    assert r["rank_accuracy"] == 1.0
    assert r["back_recall"] == 1.0
    assert r["chip_recall"] == 1.0
    assert r["false_cards_per_image"] == 0.5


def test_low_iou_is_a_miss_and_exclusion_works(tmp_path):
    m = _manifest(tmp_path, ["images/a.jpg,AS,0,0,100,150", "images/b.jpg,2C,0,0,100,150"])
    reader = FakeReader({"a.jpg": [_Det("AS", (60, 80, 160, 230))], "b.jpg": [_Det("2C", (0, 0, 100, 150))]})
    r = evaluate_manifest(m, reader=reader)
    assert r["card_accuracy"] == 0.5 and r["false_cards_per_image"] == 0.5
    ex = tmp_path / "overlap.csv"
    ex.write_text("train_image,val_image\nimages/x.jpg,images/a.jpg\n")
    r = evaluate_manifest(m, exclude=ex, reader=reader)
    assert r["images"] == 1 and r["card_accuracy"] == 1.0


def test_image_level_rows_compare_multisets(tmp_path):
    m = _manifest(tmp_path, ["images/a.jpg,AS,,,,", "images/a.jpg,AS,,,,", "images/a.jpg,BACK,,,,"])
    reader = FakeReader({"a.jpg": [_Det("AS", (0, 0, 1, 1)), _Det("BACK", (5, 5, 9, 9), "card_back")]})
    r = evaluate_manifest(m, reader=reader)
    assert r["card_accuracy"] == 0.5 and r["back_recall"] == 1.0


def test_errata_relabel_the_rows_they_name(tmp_path):
    m = _manifest(tmp_path, ["images/a.jpg,3D,0,0,100,150", "images/a.jpg,3D,200,0,300,150", "images/b.jpg,7S,,,,"])
    errata = tmp_path / "errata.csv"
    errata.write_text("image,label,x1,y1,x2,y2,corrected,seen\n"
                      "images/a.jpg,3D,200,0,300,150,KD,K index\n"
                      "images/b.jpg,7S,,,,,8S,eight pips\n")
    reader = FakeReader({"a.jpg": [_Det("3D", (0, 0, 100, 150)), _Det("KD", (200, 0, 300, 150))],
                         "b.jpg": [_Det("8S", (0, 0, 100, 150))]})
    assert evaluate_manifest(m, reader=reader)["card_accuracy"] == pytest.approx(1 / 3, abs=1e-3)
    corrected = evaluate_manifest(m, reader=reader, errata=errata)
    # only the second 3D (the box named) became KD; the image-level 7S became 8S
    assert corrected["card_accuracy"] == 1.0 and corrected["corrected_labels"] == 2


@pytest.mark.parametrize(("line", "message"), [
    ("images/a.jpg,3D,200,0,300,151,KD,x", "line 2: no row 3D at (200.0, 0.0, 300.0, 151.0)"),
    ("images/a.jpg,3D,0,0,100,150,KX,x", "line 2: corrected label 'KX' is not a card"),
    ("images/a.jpg,3D,0,0,100,,KD,x", "line 2: give all four of x1,y1,x2,y2"),
    ("images/a.jpg,3D,0,0,100,1S0,KD,x", "line 2: the box 0,0,100,1S0 is not four numbers"),
    ("images/a.jpg,3D,0,0", "line 2: corrected label '' is not a card"),
])
def test_an_errata_row_that_fits_nothing_says_which_line_and_why(tmp_path, line, message, capsys):
    from training.photo.evaluate import main

    m = _manifest(tmp_path, ["images/a.jpg,3D,0,0,100,150"])
    errata = tmp_path / "errata.csv"
    errata.write_text("image,label,x1,y1,x2,y2,corrected,seen\n" + line + "\n")
    assert main(["--manifest", str(m), "--errata", str(errata)]) == 2
    assert message in capsys.readouterr().err


def test_the_committed_errata_fit_the_validation_manifest():
    from training.data import VAL_DIR, read_manifest
    from training.photo.evaluate import apply_errata

    if not (VAL_DIR / "manifest.csv").exists():
        pytest.skip("needs ../shared/realcards (the validation photos' labels)")
    manifest = read_manifest(VAL_DIR / "manifest.csv")
    # six, as README.md and the model card say; a row that fits no label would raise
    assert apply_errata(manifest, Path(__file__).parents[2] / "models" / "val_label_errata.csv") == 6


def test_a_models_folder_without_the_readers_weights_is_refused_naming_them(tmp_path, capsys):
    from training.photo.evaluate import main

    m = _manifest(tmp_path, ["images/a.jpg,3D,0,0,100,150"])
    candidate = tmp_path / "candidate"
    assert main(["--manifest", str(m), "--models", str(candidate)]) == 2
    assert f"{candidate}: not a folder" in capsys.readouterr().err
    candidate.mkdir()
    (candidate / "card_detector.pt").write_bytes(b"weights")  # two of the three files are missing
    assert main(["--manifest", str(m), "--models", str(candidate)]) == 2
    assert f"{candidate}: no card_identifier.pt, card_index.pt" in capsys.readouterr().err


def _other_classes(path: Path) -> None:
    """The weights at ``path`` saved again as a model of other classes."""
    import torch

    checkpoint = torch.load(path, weights_only=False)
    if path.name == "card_detector.pt":  # an ultralytics checkpoint: the classes are the model's names
        checkpoint["model"].names = {0: "card_back", 1: "card_face", 2: "chip"}
    else:
        checkpoint["classes"] = list(checkpoint["classes"])[::-1]
    torch.save(checkpoint, path)


@pytest.mark.parametrize(("name", "spoil", "message"), [
    ("card_detector.pt", _other_classes, "card_detector.pt: its classes ['card_back', 'card_face', 'chip'] are not"),
    ("card_identifier.pt", _other_classes, "card_identifier.pt: its classes are not ID_CLASSES"),
    ("card_index.pt", _other_classes, "card_index.pt: its classes are not this code's INDEX_CLASSES"),
    ("card_index.pt", lambda path: path.write_bytes(b"not weights"), "cannot be loaded: UnpicklingError"),
])
def test_weights_the_reader_cannot_use_are_refused_naming_the_file(tmp_path, capsys, name, spoil, message):
    import shutil

    from training.photo.evaluate import READER_FILES, main

    committed = Path(__file__).parents[2] / "models"
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    for file in READER_FILES:
        shutil.copy(committed / file, candidate / file)
    spoil(candidate / name)  # only the candidate's folder has these weights: the reader was loaded from it
    m = _manifest(tmp_path, ["images/a.jpg,3D,0,0,100,150"])
    assert main(["--manifest", str(m), "--models", str(candidate)]) == 2
    err = capsys.readouterr().err
    assert f"the reader in {candidate} cannot be loaded" in err and message in err


# --- the command's report and progress ------------------------------------------------------------------------


def _command_with_a_fake_reader(tmp_path: Path, monkeypatch) -> tuple[list[str], FakeReader]:
    """``main``'s arguments for a manifest of two photos (one excluded), and the FakeReader that ``main`` then loads
    instead of the card reader (the weights' files are there, never read)."""
    import training.photo.identify
    from training.photo.evaluate import READER_FILES

    m = _manifest(tmp_path, ["images/a.jpg,AS,0,0,100,150", "images/a.jpg,10H,200,0,300,150",
                             "images/b.jpg,K?,0,0,100,150", "images/b.jpg,BACK,300,0,400,150"])
    answers = {"a.jpg": [_Det("AS", (0, 0, 100, 150)), _Det("10D", (200, 0, 300, 150)), _Det("2C", (600, 0, 700, 1))],
               "b.jpg": [_Det("KD", (0, 0, 100, 150))]}
    reader = FakeReader(answers)
    monkeypatch.setattr(training.photo.identify, "CardReader", lambda models: reader)
    models = tmp_path / "models"
    models.mkdir()
    for name in READER_FILES:
        (models / name).write_bytes(b"never loaded")
    exclude = tmp_path / "overlap.csv"
    exclude.write_text("val_image\nimages/b.jpg\n")
    return ["--manifest", str(m), "--models", str(models), "--exclude", str(exclude)], reader


def test_the_plain_report_is_a_table_of_figures_values_and_counts(tmp_path, monkeypatch, capsys) -> None:
    from training.photo.evaluate import main

    argv, _ = _command_with_a_fake_reader(tmp_path, monkeypatch)
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):  # rich's switches, which would make a pipe count as a terminal
        monkeypatch.delenv(name, raising=False)
    assert main([*argv[:4], "--details"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # stderr is not a terminal here: no progress
    text = " ".join(captured.out.split())
    for row in ("Cards read right 66.7% 2 of 3 face-up cards", "Ranks read right 100.0% 3 of 3 face-up cards",
                "Suits read right 50.0% 1 of 2 cards of a known suit", "Backs found 0.0% 0 of 1 backs",
                "Chips found - 0 of 0 chips", "False cards 0.50 per image 1 in 2 images", "Photos scored 2 0 left out",
                "s per image", "Misread cards (2)", "images/a.jpg 10H 10D", "images/b.jpg BACK nothing"):
        assert row in text, row
    assert "{" not in captured.out and "card_accuracy" not in captured.out


def test_both_runs_side_by_side_and_json_unchanged(tmp_path, monkeypatch, capsys) -> None:
    import json

    from training.photo.evaluate import evaluate_manifest, main

    argv, reader = _command_with_a_fake_reader(tmp_path, monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")
    assert main([*argv, "--both"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "figure all photos of how many without excluded of how many" in text
    assert "Cards read right 66.7% 2 of 3 face-up cards 50.0% 1 of 2 face-up cards" in text
    assert "Photos scored 2 0 left out 1 1 left out" in text and "read above" in text
    assert main([*argv, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    expected = evaluate_manifest(argv[1], argv[5], reader=reader)  # --json: evaluate_manifest's own result
    assert {k: v for k, v in res.items() if k != "seconds_per_image"} == {
        k: v for k, v in expected.items() if k != "seconds_per_image"}


def test_progress_over_the_photos_shows_on_a_terminal_and_not_with_quiet(tmp_path, monkeypatch, capsys) -> None:
    import json

    from training.photo.evaluate import main

    argv, _ = _command_with_a_fake_reader(tmp_path, monkeypatch)
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich's switch: stderr counts as a terminal
    monkeypatch.setenv("COLUMNS", "200")
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["images"] == 1
    assert "loading the card reader" in captured.err and "(1/1 images)" in captured.err
    assert main([*argv, "--json", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_eval_vision_without_the_train_extra_says_what_to_install(tmp_path, monkeypatch, capsys) -> None:
    """The table's install has no torch and no ultralytics: the command says so in one line, exit 2."""
    import importlib.util

    from controller import cli

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("torch", "ultralytics") else real_find_spec(name, *a))
    assert cli.main(["eval-vision", "--manifest", str(tmp_path / "manifest.csv")]) == 2
    err = capsys.readouterr().err
    assert err == ("stud-table eval-vision: the photo reader needs the train extra (torch, ultralytics not "
                   "installed): pip install -e '.[train]'\n")
