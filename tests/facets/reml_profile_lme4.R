# REML profile-likelihood references of tests/facets/test_profile.py: intervals of the variance components and of
# their shares of the variance of the reported mean, on the unbalanced items x prompts x seeds design
# tests/fixtures/facets/reml_r1.csv (each model, and the difference m0 - m1 on the cells both have).
#
#   Rscript tests/facets/reml_profile_lme4.R tests/fixtures/facets/reml_r1.csv
#
# The criterion is lme4's own REML deviance (the pieces of lmer's deviance function: log|L|^2, log|R_X|^2, the
# penalized residual sum of squares), written as a function of every variance with sigma not profiled out, as
# lme4's devfun2 does for the ML profile (lme4's confint(method = "profile") refits by ML: its intervals are
# printed beside as comments, for comparison; ML's are shorter for terms of few levels). Each profile point is minimized over the other standard deviations by bobyqa
# (minqa, lme4's optimizer) from the REML estimates and from the optimum of the point profiled before (the profile
# can move between modes: variance shifting from one term to another); each bound is the root of D(x) - D_hat - qchisq(0.95, 1) by
# uniroot on the square-root scale (standard deviation; square root of the share). A share is that of the
# variance of the mean over items of each item's mean score: sum_T v_T m_T with m_T the sum over T's levels of
# the squared total weight of its cells (each cell 1 / (items x cells of its item)). Printed as a Python dict.
suppressMessages({library(lme4); library(minqa)})
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
cut <- qchisq(0.95, 1)
warm <- NULL
cat(sprintf("# R %s, lme4 %s, minqa %s\n", getRversion(), packageVersion("lme4"), packageVersion("minqa")))
cat("PROFILE = {\n")
for (name in names(sets)) {
  x <- sets[[name]]
  for (v in c("item", "prompt", "seed")) x[[v]] <- factor(x[[v]])
  m <- suppressMessages(lmer(f, data = x, REML = TRUE))
  m <- suppressMessages(lmer(f, data = x, REML = TRUE, start = getME(m, "theta"), control = tight))
  grp <- c(names(getME(m, "theta")), "Residual")
  grp <- sub("\\.\\(Intercept\\)$", "", grp)
  dev <- getME(m, "devfun")
  env <- environment(dev)
  n <- nrow(x)
  full <- function(sd) {  # REML deviance at standard deviations (terms in lme4's order, then the residual)
    s <- sd[length(sd)]
    if (s <= 0) return(1e300)
    dev(sd[-length(sd)] / s)
    env$pp$ldL2() + env$pp$ldRX2() + (n - 1) * log(2 * pi * s^2) + (env$resp$wrss() + env$pp$sqrL(1)) / s^2
  }
  vc <- as.data.frame(VarCorr(m))
  sd_hat <- c(vc$sdcor[match(grp[-length(grp)], vc$grp)], sigma(m))
  d_hat <- full(sd_hat)
  # multipliers of each component in the variance of the mean
  cell_w <- 1 / (nlevels(droplevels(x$item)) * table(x$item)[as.character(x$item)])
  mult <- sapply(grp, function(g) {
    if (g == "Residual") return(sum(cell_w^2))
    key <- interaction(x[, strsplit(g, ":")[[1]], drop = FALSE], drop = TRUE)
    sum(tapply(cell_w, key, sum)^2)
  })
  # minimum of the deviance with sd[k] given by fix(other sds) (a constraint), over the other sds
  profile_at <- function(k, fix) {
    free <- setdiff(seq_along(sd_hat), k)
    put <- function(p) { sd <- numeric(length(sd_hat)); sd[free] <- p; sd[k] <- fix(sd); sd }
    lo <- rep(0, length(free)); lo[length(free)] <- if (k == length(sd_hat)) 0 else 1e-6
    if (k == length(sd_hat)) lo[length(free)] <- 0
    best <- NULL
    for (start in list(pmax(sd_hat[free], 1e-4), warm)) {  # from the estimates, and from the last point's optimum
      if (is.null(start)) next
      o <- bobyqa(pmax(start, lo + 1e-4), function(p) full(put(p)), lower = lo,
                  control = list(rhobeg = 2e-3, rhoend = 1e-11, maxfun = 2e5))
      if (is.null(best) || o$fval < best$fval) best <- o
    }
    warm <<- best$par
    best$fval
  }
  root <- function(g, from, to) uniroot(g, sort(c(from, to)), tol = 1e-10)$root
  bound <- function(g, hat, dir, end) {  # g(x) = D(x) - D_hat - cut on a square-root scale
    warm <<- NULL
    if (dir < 0) { if (g(end) <= 0) return(end); return(root(g, end, hat)) }
    step <- max(hat, 0.02) * 0.5
    out <- min(hat + step, end)
    while (g(out) < 0) { step <- step * 2; out <- min(hat + step, end); if (out >= end) break }
    if (g(out) < 0) return(Inf)
    root(g, hat, out)
  }
  cat(sprintf('    "%s": {  # REML criterion %s\n', name, format(REMLcrit(m), digits = 15)))
  for (k in seq_along(grp)) {
    gc <- function(s) profile_at(k, function(sd) s) - d_hat - cut
    lo <- bound(gc, sd_hat[k], -1, 0)
    hi <- bound(gc, sd_hat[k], 1, 10)
    share <- mult[k] * sd_hat[k]^2 / sum(mult * sd_hat^2)
    gs <- function(q) {  # q = sqrt(share)
      r <- q^2
      profile_at(k, function(sd) sqrt(r / (1 - r) * sum((mult * sd^2)[-k]) / mult[k])) - d_hat - cut
    }
    slo <- bound(gs, sqrt(share), -1, 0)
    shi <- bound(gs, sqrt(share), 1, sqrt(1 - 1e-9))
    cat(sprintf('        "%s": ((%s, %s), (%s, %s)),  # variance %s, share %s\n', names_eb[grp[k]],
                format(lo^2, digits = 10), format(hi^2, digits = 10), format(slo^2, digits = 10),
                format(shi^2, digits = 10), format(sd_hat[k]^2, digits = 6), format(share, digits = 6)))
  }
  ml <- suppressWarnings(suppressMessages(confint(m, method = "profile", oldNames = FALSE)))
  ml <- ml[grepl("^sd_|^sigma", rownames(ml)), , drop = FALSE]
  cat(sprintf("        # lme4 confint(method = 'profile') (ML deviance), variance %s: (%s, %s)\n", rownames(ml),
              format(ml[, 1]^2, digits = 6), format(ml[, 2]^2, digits = 6)), sep = "")
  cat("    },\n")
}
cat("}\n")
