"""Names are drawn as text, never as mathtext: '$\\badcmd{$' and '$5 vs $10' (issue 14: the report failed with an
empty error message) are drawn as written by every plot, saved and drawn again outside evalband's settings.

Oracle: the text of every label matplotlib holds equals the name given, and drawing succeeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from evalband.cli.main import app  # noqa: E402
from evalband.report import plots  # noqa: E402
from evalband.report.plots.cd_diagram import cd_diagram  # noqa: E402

NAMES = ["$\\badcmd{$", "$5 vs $10", "a_b^c $x$", "plain"]


def _every_plot(names):
    M = len(names)
    gen = np.random.default_rng(0)
    agg = np.linspace(0.4, 0.7, M)
    se = np.full(M, 0.02)
    est = gen.uniform(0.3, 0.8, size=(M, 3))
    diff = agg[:, None] - agg[None, :]
    probs = np.full((M, M), 1.0 / M)
    k = np.arange(1, 5)
    pk = 1 - (1 - est[:, :1]) ** k
    return [
        plots.forest_plot(names, agg, (agg - 2 * se, agg + 2 * se), (agg - se, agg + se)),
        plots.task_heatmap(names, ["$t$", "t_2", "t3"], est, est * 0.1),
        plots.pairwise_matrix(names, diff, np.abs(diff) > 0.1),
        plots.rank_distribution_plot(names, probs, (np.ones(M), np.full(M, M))),
        plots.interval_comparison_plot(names, {"$boot$": (agg - se, agg + se), "Bayes": (agg - se, agg + se)}),
        plots.pass_at_k_plot(k, pk, names, (pk - 0.01, pk + 0.01)),
        cd_diagram(mean_ranks=np.arange(1.0, M + 1), models=names, critical_difference=1.5),
    ]


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_every_plot_draws_names_as_text(fmt):
    for ax in _every_plot(NAMES):
        data = plots.figure_bytes(ax.figure, fmt)  # mathtext would raise here
        assert len(data) > 1000
        texts = {t.get_text() for t in ax.figure.findobj(Text)}
        assert all(any(name in t for t in texts) for name in NAMES[:2])  # as written (the CD adds ranks)
        assert all(not t.get_parse_math() for t in ax.figure.findobj(Text))
        FigureCanvasAgg(ax.figure).draw()  # drawn again outside evalband's rc settings


def test_report_with_dollar_names_through_the_cli(tmp_path):
    gen = np.random.default_rng(2)
    rows = [f"{m},t{t},{i},{int(gen.random() < 0.4 + 0.1 * k)}" for k, m in enumerate(('"$\\badcmd{$"',
                                                                                     '"$5 vs $10"', "ok"))
            for t in range(3) for i in range(30)]
    path = tmp_path / "r.csv"
    path.write_text("model,task,item,score\n" + "\n".join(rows) + "\n")
    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", str(path), "-o", str(out), "--n-resamples", "100", "--no-bayes",
                                   "--figures", str(tmp_path / "figs")])
    assert res.exit_code == 0, res.stderr
    html = out.read_text()
    assert "$5 vs $10" in html and "$\\badcmd{$" in html
    assert (tmp_path / "figs" / "forest.svg").exists()
