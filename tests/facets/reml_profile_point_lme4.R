# lme4's REML deviance at one point of a profile (tests/facets/test_profile.py): the point evalband's profile of
# the share of 'item' in m0's variance of the mean reaches at its lower bound, whose deviance bobyqa started from
# the REML estimates (reml_profile_lme4.R) does not find (the profile there changes mode: variance moves from the
# item to the seed term).
#
#   Rscript tests/facets/reml_profile_point_lme4.R tests/fixtures/facets/reml_r1.csv
suppressMessages(library(lme4))
d <- read.csv(commandArgs(TRUE)[1])
f <- score ~ 1 + (1|item) + (1|prompt) + (1|seed) + (1|item:prompt) + (1|item:seed) + (1|prompt:seed)
x <- d[d$model == "m0", c("item", "prompt", "seed", "score")]
for (v in c("item", "prompt", "seed")) x[[v]] <- factor(x[[v]])
tight <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhobeg = 1e-3, rhoend = 1e-12, maxfun = 1e5),
                     calc.derivs = FALSE)
m <- suppressMessages(lmer(f, data = x, REML = TRUE))
m <- suppressMessages(lmer(f, data = x, REML = TRUE, start = getME(m, "theta"), control = tight))
dev <- getME(m, "devfun")
env <- environment(dev)
n <- nrow(x)
full <- function(sd, s) {  # REML deviance at standard deviations of the terms (lme4's order) and the residual's
  dev(sd / s)
  env$pp$ldL2() + env$pp$ldRX2() + (n - 1) * log(2 * pi * s^2) + (env$resp$wrss() + env$pp$sqrL(1)) / s^2
}
# evalband's point (standard deviations): item, prompt, seed, item x prompt, item x seed, prompt x seed, residual
p <- c(item = 0.1848726458045089, prompt = 0.05013139655001066, seed = 0.10963385544188874,
       "item:prompt" = 0.12688021801727556, "item:seed" = 0.0775400968578375, "prompt:seed" = 0, res = 0.4358813204526985)
grp <- sub("\\.\\(Intercept\\)$", "", names(getME(m, "theta")))
cat(sprintf("REML criterion at the estimates %.10f, at the point %.10f, rise %.10f\n", REMLcrit(m),
            full(p[grp], p[["res"]]), full(p[grp], p[["res"]]) - REMLcrit(m)))
