"""``lejepa report`` as a new user runs it (issue #13): an --out that cannot be created is one
error line (not a NotADirectoryError traceback), and a results directory without any of the
paper's sweeps says so instead of a silent report of 'Skipped' sections."""

from __future__ import annotations

from lejepa_experiments import cli


def test_report_out_under_a_regular_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "res").mkdir()
    (tmp_path / "afile").write_text("x")
    assert cli.main(["report", str(tmp_path / "res"), "--out", str(tmp_path / "afile" / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lejepa report: error: --out") and "not writable" in err and "Traceback" not in err


def test_report_on_a_directory_without_sweeps_says_so(tmp_path, capsys):
    (tmp_path / "res" / "my_sweep").mkdir(parents=True)   # a sweep of another name is not one of the paper's
    assert cli.main(["report", str(tmp_path / "res"), "--out", str(tmp_path / "rep")]) == 0
    cap = capsys.readouterr()
    assert "no sweep of the paper's" in cap.err and (tmp_path / "rep" / "report.md").exists()


def test_report_on_a_missing_directory_is_refused(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "rep")]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "rep").exists()
