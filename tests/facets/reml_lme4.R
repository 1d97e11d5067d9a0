# lme4 references of tests/facets/test_reml.py (LME4): REML variance components of the unbalanced items x prompts
# x seeds design tests/fixtures/facets/reml_r1.csv (written by `python benchmarks/reml.py --quick --write
# tests/fixtures/facets`): each model, and the difference m0 - m1 on the cells both have.
#
#   Rscript tests/facets/reml_lme4.R tests/fixtures/facets/reml_r1.csv
#
# lme4's default optimizer stops early on the flat directions of this likelihood (its criterion is ~1e-9 above
# the optimum, the small components off by up to ~1e-3 relative); the references are its fit restarted at that
# point with bobyqa to rhoend = 1e-12, the optimum to solver precision. Printed as a Python dict.
suppressMessages(library(lme4))
d <- read.csv(commandArgs(TRUE)[1])
f <- score ~ 1 + (1|item) + (1|prompt) + (1|seed) + (1|item:prompt) + (1|item:seed) + (1|prompt:seed)
tight <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhobeg = 1e-3, rhoend = 1e-12, maxfun = 1e5),
                     calc.derivs = FALSE)
a <- d[d$model == "m0", c("item", "prompt", "seed", "score")]
b <- d[d$model == "m1", c("item", "prompt", "seed", "score")]
e <- merge(a, b, by = c("item", "prompt", "seed"))
e$score <- e$score.x - e$score.y
sets <- list("m0" = a, "m1" = b, "m0 - m1" = e[, c("item", "prompt", "seed", "score")])
names_eb <- c("item" = "item", "prompt" = "prompt", "seed" = "seed", "item:prompt" = "item x prompt",
              "item:seed" = "item x seed", "prompt:seed" = "prompt x seed",
              "Residual" = "item x prompt x seed, residual")
cat(sprintf("# R %s, lme4 %s\n", getRversion(), packageVersion("lme4")))
cat("LME4 = {\n")
for (name in names(sets)) {
  x <- sets[[name]]
  for (v in c("item", "prompt", "seed")) x[[v]] <- factor(x[[v]])
  m <- suppressMessages(lmer(f, data = x, REML = TRUE))
  m <- suppressMessages(lmer(f, data = x, REML = TRUE, start = getME(m, "theta"), control = tight))
  vc <- as.data.frame(VarCorr(m))
  cat(sprintf('    "%s": {  # REML criterion %s\n', name, format(REMLcrit(m), digits = 15)))
  cat(sprintf('        "%s": %s,\n', names_eb[vc$grp], format(vc$vcov, digits = 17)), sep = "")
  cat("    },\n")
}
cat("}\n")
