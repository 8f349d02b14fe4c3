import Mathlib

-- All of Mathlib is imported on purpose: no Lean toolchain was available where these files were
-- written, and a missing transitive import would break the build. Narrow the imports once
-- `lake build` has run.

/-!
# The Gaussian is the only density with an affine score (paper, Theorem 4.2, analytic core)

Paper claim (Theorem 4.2): among distributions satisfying the world-model assumptions, the
Gaussian is the unique one for which linear identifiability holds. The paper's proof goes through
a Sturm–Liouville argument: linear identifiability forces the first non-trivial eigenfunction
of the generator `L f = f'' + (log p)' f'` to be affine, `φ₁(z) = α z + β`; then the score
`(log p)'` is affine, `(log p)'(z) = a z + b` with `a < 0`, and `p` is Gaussian.

What is formalized here (one coordinate, `p : ℝ → ℝ`):

* `eq_mul_exp_of_deriv_eq` (ODE uniqueness): if `p` is differentiable and
  `p' z = (a z + b) p z` for all `z`, then `p z = p 0 · exp (a z² / 2 + b z)`. Proof: the
  derivative of `p z · exp (-(a z²/2 + b z))` vanishes, so it is constant
  (`is_const_of_deriv_eq_zero`).
* `deriv_eq_of_score_eq`, `deriv_log_eq_score`: for a positive `p`, an affine score
  `score p z = p' z / p z = (log p)'(z) = a z + b` gives the ODE above.
* `neg_of_integral_eq_one`: if moreover `∫ p = 1` and `p 0 > 0`, then `a < 0`. If `a ≥ 0`, then
  `p ≥ p 0 > 0` on a half-line (`[0, ∞)` if `b ≥ 0`, `(-∞, 0]` if `b < 0`), so `p` is not
  integrable and its Bochner integral is `0 ≠ 1`.
* `eq_gaussianPDFReal_of_eq_mul_exp`: if `a < 0` and `∫ p = 1`, then `p` is Mathlib's Gaussian
  density `gaussianPDFReal μ v` with mean `μ = -b/a` and variance `v = -1/a`: both functions are
  multiples of `exp (a z²/2 + b z)`, and the constant is fixed by `∫ gaussianPDFReal = 1`.
* `gaussian_of_affine_score`: the combination (headline).
* Sturm–Liouville link: `score_eq_of_affine_eigenfunction` (an affine eigenfunction
  `L φ = -λ φ`, `φ z = α z + β`, `α ≠ 0`, forces the score `-λ z - λβ/α`), its combination
  `gaussian_of_affine_eigenfunction` (then `λ > 0` and `p` is Gaussian with mean `-β/α`,
  variance `1/λ`), and the converse for the Gaussian: `score_gaussianPDFReal`
  (score `-(z - μ)/v`) and `generator_gaussianPDFReal` (`L (z - μ) = -(1/v)(z - μ)`).
* Non-vacuity: `gaussianPDFReal_meets_affine_score` and
  `gaussianPDFReal_meets_affine_eigenfunction` — for `v ≠ 0`, `gaussianPDFReal μ v` meets every
  hypothesis of the two headline theorems (`…_applies` plugs each in).

Not formalized: the step from "linear identifiability of the LeJEPA optimum" to "the first
eigenfunction is affine" (spectral theory of the generator on `L²(p)`); the product structure
over `n` independent coordinates; the Laplace and uniform contrasts (checked numerically in
`pycheck/tests/test_fidelity_uniqueness.py`).
-/

open MeasureTheory ProbabilityTheory
open scoped ENNReal NNReal

noncomputable section

namespace Lejepa.Uniqueness

/-- The score of a density: `p' z / p z`, which is `(log p)'(z)` when `p > 0`. -/
def score (p : ℝ → ℝ) (z : ℝ) : ℝ := deriv p z / p z

/-- The generator `L f = f'' + (log p)' f'` of the Langevin diffusion with stationary density `p`. -/
def generator (p f : ℝ → ℝ) (z : ℝ) : ℝ := deriv (deriv f) z + score p z * deriv f z

theorem hasDerivAt_quadratic (a b z : ℝ) :
    HasDerivAt (fun y : ℝ => a * y ^ 2 / 2 + b * y) (a * z + b) z := by
  have h2 : HasDerivAt (fun y : ℝ => y ^ 2) (2 * z) z :=
    (hasDerivAt_pow 2 z).congr_deriv (by norm_num)
  have h := ((h2.const_mul a).div_const 2).fun_add ((hasDerivAt_id' z).const_mul b)
  exact h.congr_deriv (by ring)

/-- For a positive differentiable `p`, the derivative of `log p` is the score. -/
theorem deriv_log_eq_score {p : ℝ → ℝ} (hpos : ∀ z, 0 < p z) (hdiff : Differentiable ℝ p)
    (z : ℝ) : deriv (fun y => Real.log (p y)) z = score p z :=
  ((hdiff z).hasDerivAt.log (hpos z).ne').deriv

/-- An affine score gives the linear ODE `p' = (a z + b) p`. -/
theorem deriv_eq_of_score_eq {p : ℝ → ℝ} {a b : ℝ} (hpos : ∀ z, 0 < p z)
    (hscore : ∀ z, score p z = a * z + b) (z : ℝ) : deriv p z = (a * z + b) * p z := by
  have h := hscore z
  rw [score, div_eq_iff (hpos z).ne'] at h
  exact h

/-- **ODE uniqueness.** If `p` is differentiable and `p' z = (a z + b) p z` for every `z`, then
`p z = p 0 · exp (a z²/2 + b z)`. -/
theorem eq_mul_exp_of_deriv_eq {p : ℝ → ℝ} {a b : ℝ} (hdiff : Differentiable ℝ p)
    (hderiv : ∀ z, deriv p z = (a * z + b) * p z) (z : ℝ) :
    p z = p 0 * Real.exp (a * z ^ 2 / 2 + b * z) := by
  have hq : ∀ x : ℝ,
      HasDerivAt (fun y => p y * Real.exp (-(a * y ^ 2 / 2 + b * y))) 0 x := by
    intro x
    have hp : HasDerivAt p ((a * x + b) * p x) x := by
      rw [← hderiv x]
      exact (hdiff x).hasDerivAt
    have he : HasDerivAt (fun y => Real.exp (-(a * y ^ 2 / 2 + b * y)))
        (Real.exp (-(a * x ^ 2 / 2 + b * x)) * (-(a * x + b))) x :=
      (hasDerivAt_quadratic a b x).fun_neg.exp
    exact (hp.fun_mul he).congr_deriv (by ring)
  have hdq : Differentiable ℝ (fun y => p y * Real.exp (-(a * y ^ 2 / 2 + b * y))) :=
    fun x => (hq x).differentiableAt
  have hconst : ∀ x y : ℝ, p x * Real.exp (-(a * x ^ 2 / 2 + b * x)) =
      p y * Real.exp (-(a * y ^ 2 / 2 + b * y)) :=
    is_const_of_deriv_eq_zero hdq (fun x => (hq x).deriv)
  have h0 : p 0 * Real.exp (-(a * (0 : ℝ) ^ 2 / 2 + b * 0)) = p 0 := by
    have e : -(a * (0 : ℝ) ^ 2 / 2 + b * 0) = 0 := by ring
    rw [e, Real.exp_zero, mul_one]
  calc p z = p z * Real.exp (-(a * z ^ 2 / 2 + b * z) + (a * z ^ 2 / 2 + b * z)) := by
        rw [neg_add_cancel, Real.exp_zero, mul_one]
    _ = p z * Real.exp (-(a * z ^ 2 / 2 + b * z)) * Real.exp (a * z ^ 2 / 2 + b * z) := by
        -- both arguments given: the pattern is the left-hand `exp (-q + q)` only
        rw [Real.exp_add (-(a * z ^ 2 / 2 + b * z)) (a * z ^ 2 / 2 + b * z)]
        ring
    _ = p 0 * Real.exp (a * z ^ 2 / 2 + b * z) := by
        rw [hconst z 0, h0]

/-- A function of the form `p 0 · exp (a z²/2 + b z)` has derivative `(a z + b) p z`. -/
theorem hasDerivAt_of_eq_mul_exp {p : ℝ → ℝ} {a b : ℝ}
    (hform : ∀ z, p z = p 0 * Real.exp (a * z ^ 2 / 2 + b * z)) (z : ℝ) :
    HasDerivAt p ((a * z + b) * p z) z := by
  have h : HasDerivAt (fun y => p 0 * Real.exp (a * y ^ 2 / 2 + b * y))
      ((a * z + b) * p z) z := by
    refine (((hasDerivAt_quadratic a b z).exp).const_mul (p 0)).congr_deriv ?_
    rw [hform z]
    ring
  have heq : p =ᶠ[nhds z] (fun y => p 0 * Real.exp (a * y ^ 2 / 2 + b * y)) :=
    Filter.EventuallyEq.of_eq (funext hform)
  exact h.congr_of_eventuallyEq heq

/-- A function bounded below by `c > 0` on a measurable set of infinite Lebesgue measure is not
integrable. -/
theorem not_integrable_of_le_on {p : ℝ → ℝ} {s : Set ℝ} {c : ℝ} (hs : MeasurableSet s)
    (hvol : volume s = ∞) (hc : 0 < c) (hle : ∀ z ∈ s, c ≤ p z) : ¬ Integrable p := by
  intro hp
  have hon : Integrable p (volume.restrict s) := hp.restrict
  -- the bound is stated with its predicate written out, so that neither `ae_restrict_of_forall_mem`
  -- nor `Integrable.mono'` has a higher-order argument left to infer
  have hbound : ∀ z ∈ s, ‖c‖ ≤ p z := by
    intro z hz
    rw [Real.norm_eq_abs, abs_of_pos hc]
    exact hle z hz
  have hae : ∀ᵐ z ∂(volume.restrict s), ‖c‖ ≤ p z := ae_restrict_of_forall_mem hs hbound
  have hconst : Integrable (fun _ : ℝ => c) (volume.restrict s) :=
    hon.mono' aestronglyMeasurable_const hae
  have hfin : IsFiniteMeasure (volume.restrict s) :=
    (integrable_const_iff_isFiniteMeasure hc.ne').mp hconst
  exact isFiniteMeasure_restrict.mp hfin hvol

/-- **Normalizability forces `a < 0`.** If `p z = p 0 · exp (a z²/2 + b z)` with `p 0 > 0` and
`∫ p = 1`, then `a < 0`. -/
theorem neg_of_integral_eq_one {p : ℝ → ℝ} {a b : ℝ} (hp0 : 0 < p 0)
    (hform : ∀ z, p z = p 0 * Real.exp (a * z ^ 2 / 2 + b * z)) (hint : ∫ z, p z = 1) :
    a < 0 := by
  by_contra hneg
  have ha : 0 ≤ a := not_lt.mp hneg
  have hni : ¬ Integrable p := by
    by_cases hb : 0 ≤ b
    · refine not_integrable_of_le_on (s := Set.Ici (0 : ℝ)) measurableSet_Ici Real.volume_Ici
        hp0 ?_
      intro z hz
      have hz' : 0 ≤ z := Set.mem_Ici.mp hz
      have hq : 0 ≤ a * z ^ 2 / 2 + b * z := by
        have h1 : 0 ≤ a * z ^ 2 := mul_nonneg ha (sq_nonneg z)
        have h2 : 0 ≤ b * z := mul_nonneg hb hz'
        linarith
      rw [hform z]
      calc p 0 = p 0 * 1 := (mul_one _).symm
        _ ≤ p 0 * Real.exp (a * z ^ 2 / 2 + b * z) :=
          mul_le_mul_of_nonneg_left (Real.one_le_exp hq) hp0.le
    · have hb' : b < 0 := not_le.mp hb
      refine not_integrable_of_le_on (s := Set.Iic (0 : ℝ)) measurableSet_Iic Real.volume_Iic
        hp0 ?_
      intro z hz
      have hz' : z ≤ 0 := Set.mem_Iic.mp hz
      have hq : 0 ≤ a * z ^ 2 / 2 + b * z := by
        have h1 : 0 ≤ a * z ^ 2 := mul_nonneg ha (sq_nonneg z)
        have h2 : 0 ≤ b * z := mul_nonneg_of_nonpos_of_nonpos hb'.le hz'
        linarith
      rw [hform z]
      calc p 0 = p 0 * 1 := (mul_one _).symm
        _ ≤ p 0 * Real.exp (a * z ^ 2 / 2 + b * z) :=
          mul_le_mul_of_nonneg_left (Real.one_le_exp hq) hp0.le
  rw [integral_undef hni] at hint
  exact zero_ne_one hint

/-- The Gaussian density is a multiple of `exp (a z²/2 + b z)` when `a v = -1`, `b v = μ`. -/
theorem gaussianPDFReal_eq_mul_exp (μ : ℝ) (v : ℝ≥0) {a b : ℝ} (hv : (v : ℝ) ≠ 0)
    (ha : a * v = -1) (hb : b * v = μ) (z : ℝ) :
    gaussianPDFReal μ v z = gaussianPDFReal μ v 0 * Real.exp (a * z ^ 2 / 2 + b * z) := by
  have hinv : (v : ℝ) * (v : ℝ)⁻¹ = 1 := mul_inv_cancel₀ hv
  have key : -(z - μ) ^ 2 / (2 * (v : ℝ)) =
      -((0 : ℝ) - μ) ^ 2 / (2 * (v : ℝ)) + (a * z ^ 2 / 2 + b * z) := by
    linear_combination (-(z ^ 2 / 2) * (v : ℝ)⁻¹) * ha + (-(z * (v : ℝ)⁻¹)) * hb +
      (z ^ 2 / 2 * a + z * b) * hinv
  -- Unfold `gaussianPDFReal` by `rfl` (default transparency) into a form written here, so that
  -- `key` is rewritten in a term this file elaborated, not in Mathlib's unfolded body.
  have hg0 : gaussianPDFReal μ v 0 =
      (Real.sqrt (2 * Real.pi * v))⁻¹ * Real.exp (-((0 : ℝ) - μ) ^ 2 / (2 * (v : ℝ))) := rfl
  calc gaussianPDFReal μ v z
      = (Real.sqrt (2 * Real.pi * v))⁻¹ * Real.exp (-(z - μ) ^ 2 / (2 * (v : ℝ))) := rfl
    _ = (Real.sqrt (2 * Real.pi * v))⁻¹ * (Real.exp (-((0 : ℝ) - μ) ^ 2 / (2 * (v : ℝ))) *
          Real.exp (a * z ^ 2 / 2 + b * z)) := by
        rw [key, Real.exp_add (-((0 : ℝ) - μ) ^ 2 / (2 * (v : ℝ))) (a * z ^ 2 / 2 + b * z)]
    _ = gaussianPDFReal μ v 0 * Real.exp (a * z ^ 2 / 2 + b * z) := by
        -- `hg0`'s right side is this file's text, so the rewrite is syntactic; then associativity
        rw [hg0]
        exact (mul_assoc _ _ _).symm

/-- A normalized `p 0 · exp (a z²/2 + b z)` is the Gaussian density with mean `μ` and variance
`v`, where `a v = -1` and `b v = μ`. -/
theorem eq_gaussianPDFReal_of_eq_mul_exp' {p : ℝ → ℝ} {a b μ : ℝ} {v : ℝ≥0} (hv : v ≠ 0)
    (ha : a * v = -1) (hb : b * v = μ)
    (hform : ∀ z, p z = p 0 * Real.exp (a * z ^ 2 / 2 + b * z)) (hint : ∫ z, p z = 1)
    (z : ℝ) : p z = gaussianPDFReal μ v z := by
  have hvR : (v : ℝ) ≠ 0 := NNReal.coe_ne_zero.mpr hv
  have hg := gaussianPDFReal_eq_mul_exp μ v hvR ha hb
  have hg0 : 0 < gaussianPDFReal μ v 0 := gaussianPDFReal_pos μ v 0 hv
  have hg0inv : gaussianPDFReal μ v 0 * (gaussianPDFReal μ v 0)⁻¹ = 1 :=
    mul_inv_cancel₀ hg0.ne'
  have hpg : ∀ y, p y = p 0 / gaussianPDFReal μ v 0 * gaussianPDFReal μ v y := by
    intro y
    rw [hform y, hg y]
    linear_combination (-(p 0) * Real.exp (a * y ^ 2 / 2 + b * y)) * hg0inv
  have hint' : ∫ y, p y = p 0 / gaussianPDFReal μ v 0 := by
    calc ∫ y, p y = ∫ y, p 0 / gaussianPDFReal μ v 0 * gaussianPDFReal μ v y :=
          integral_congr_ae (Filter.EventuallyEq.of_eq (funext hpg))
      _ = p 0 / gaussianPDFReal μ v 0 * ∫ y, gaussianPDFReal μ v y :=
          integral_const_mul (p 0 / gaussianPDFReal μ v 0) (gaussianPDFReal μ v)
      _ = p 0 / gaussianPDFReal μ v 0 :=
          (congrArg (fun t : ℝ => p 0 / gaussianPDFReal μ v 0 * t)
            (integral_gaussianPDFReal_eq_one μ hv)).trans (mul_one _)
  have hc : p 0 / gaussianPDFReal μ v 0 = 1 := hint'.symm.trans hint
  rw [hpg z, hc, one_mul]

/-- With `a < 0`: a normalized `p 0 · exp (a z²/2 + b z)` is `gaussianPDFReal (-b/a) (-1/a)`. -/
theorem eq_gaussianPDFReal_of_eq_mul_exp {p : ℝ → ℝ} {a b : ℝ} (ha : a < 0)
    (hform : ∀ z, p z = p 0 * Real.exp (a * z ^ 2 / 2 + b * z)) (hint : ∫ z, p z = 1)
    (z : ℝ) : p z = gaussianPDFReal (-b / a) (Real.toNNReal (-1 / a)) z := by
  have hvpos : 0 < -1 / a := div_pos_of_neg_of_neg (by norm_num) ha
  have hvcoe : ((Real.toNNReal (-1 / a) : ℝ≥0) : ℝ) = -1 / a := Real.coe_toNNReal _ hvpos.le
  have hv0 : Real.toNNReal (-1 / a) ≠ 0 := (Real.toNNReal_pos.mpr hvpos).ne'
  have hainv : a * a⁻¹ = 1 := mul_inv_cancel₀ ha.ne
  have hav : a * ((Real.toNNReal (-1 / a) : ℝ≥0) : ℝ) = -1 := by
    rw [hvcoe]
    linear_combination (-1 : ℝ) * hainv
  have hbv : b * ((Real.toNNReal (-1 / a) : ℝ≥0) : ℝ) = -b / a := by
    rw [hvcoe]
    ring
  exact eq_gaussianPDFReal_of_eq_mul_exp' hv0 hav hbv hform hint z

/-- **Theorem 4.2, analytic core.** Paper: "the Gaussian is the unique distribution [...]; an
affine score `(log p)' = α z + β` with `α < 0` forces `p` Gaussian."

Proved: if `p : ℝ → ℝ` is positive and differentiable, its score `p'/p` is affine,
`score p z = a z + b` for all `z`, and `∫ p = 1`, then `a < 0` and `p` is the Gaussian density
with mean `-b/a` and variance `-1/a` (`a < 0` is a conclusion here, not an assumption). -/
theorem gaussian_of_affine_score {p : ℝ → ℝ} {a b : ℝ} (hpos : ∀ z, 0 < p z)
    (hdiff : Differentiable ℝ p) (hscore : ∀ z, score p z = a * z + b)
    (hint : ∫ z, p z = 1) :
    a < 0 ∧ ∀ z, p z = gaussianPDFReal (-b / a) (Real.toNNReal (-1 / a)) z := by
  have hform : ∀ z, p z = p 0 * Real.exp (a * z ^ 2 / 2 + b * z) :=
    eq_mul_exp_of_deriv_eq hdiff (deriv_eq_of_score_eq hpos hscore)
  have ha : a < 0 := neg_of_integral_eq_one (hpos 0) hform hint
  exact ⟨ha, eq_gaussianPDFReal_of_eq_mul_exp ha hform hint⟩

theorem deriv_affine (α β : ℝ) : deriv (fun z : ℝ => α * z + β) = fun _ => α := by
  funext z
  exact (((hasDerivAt_id' z).const_mul α).add_const β).deriv.trans (mul_one α)

/-- **Sturm–Liouville link.** If the affine function `φ z = α z + β` (`α ≠ 0`) is an eigenfunction
of the generator, `L φ = -λ φ` everywhere, then the score is affine:
`score p z = -λ z - λ β / α`. -/
theorem score_eq_of_affine_eigenfunction {p : ℝ → ℝ} {α β lam : ℝ} (hα : α ≠ 0)
    (heig : ∀ z, generator p (fun z => α * z + β) z = -lam * (α * z + β)) (z : ℝ) :
    score p z = -lam * z + -lam * β / α := by
  have h := heig z
  have hd1 : deriv (fun z : ℝ => α * z + β) z = α := congrFun (deriv_affine α β) z
  have hd2 : deriv (deriv (fun z : ℝ => α * z + β)) z = 0 := by
    rw [deriv_affine]
    -- `exact` (default transparency) rather than a closing `rw … rfl` on the two zeros
    exact deriv_const z α
  rw [generator, hd2, hd1, zero_add] at h
  have hinv : α * α⁻¹ = 1 := mul_inv_cancel₀ hα
  linear_combination α⁻¹ * h - (score p z + lam * z) * hinv

/-- **Theorem 4.2 via the generator.** A positive, differentiable, normalized density whose
generator has an affine eigenfunction `α z + β` (`α ≠ 0`) with eigenvalue `-λ` is the Gaussian
with mean `-β/α` and variance `1/λ`, and `λ > 0`. -/
theorem gaussian_of_affine_eigenfunction {p : ℝ → ℝ} {α β lam : ℝ} (hpos : ∀ z, 0 < p z)
    (hdiff : Differentiable ℝ p) (hα : α ≠ 0)
    (heig : ∀ z, generator p (fun z => α * z + β) z = -lam * (α * z + β))
    (hint : ∫ z, p z = 1) :
    0 < lam ∧ ∀ z, p z = gaussianPDFReal (-β / α) (Real.toNNReal (1 / lam)) z := by
  have hs : ∀ z, score p z = -lam * z + -lam * β / α :=
    score_eq_of_affine_eigenfunction hα heig
  obtain ⟨ha, hg⟩ := gaussian_of_affine_score hpos hdiff hs hint
  have hl : 0 < lam := by linarith
  have hm : -(-lam * β / α) / -lam = -β / α := by
    rw [neg_div_neg_eq]
    linear_combination (-β * α⁻¹) * mul_inv_cancel₀ hl.ne'
  have hv : (-1 : ℝ) / -lam = 1 / lam := neg_div_neg_eq 1 lam
  refine ⟨hl, fun z => ?_⟩
  rw [hg z, hm, hv]

/-- Converse, score: the Gaussian density with mean `μ` and variance `v ≠ 0` has the affine score
`-(z - μ)/v`. -/
theorem score_gaussianPDFReal (μ : ℝ) {v : ℝ≥0} (hv : v ≠ 0) (z : ℝ) :
    score (gaussianPDFReal μ v) z = -(z - μ) / v := by
  have hvR : (v : ℝ) ≠ 0 := NNReal.coe_ne_zero.mpr hv
  have hinv : (v : ℝ) * (v : ℝ)⁻¹ = 1 := mul_inv_cancel₀ hvR
  have ha : (-1 / (v : ℝ)) * v = -1 := by linear_combination (-1 : ℝ) * hinv
  have hb : (μ / (v : ℝ)) * v = μ := by linear_combination μ * hinv
  have hform := gaussianPDFReal_eq_mul_exp μ v hvR ha hb
  have hd := hasDerivAt_of_eq_mul_exp hform z
  have hG : gaussianPDFReal μ v z ≠ 0 := (gaussianPDFReal_pos μ v z hv).ne'
  -- `(a z + b) * G / G = a z + b` in one step (`mul_div_cancel_right₀`), then `ring`
  rw [score, hd.deriv, mul_div_cancel_right₀ _ hG]
  ring

/-- Converse, eigenfunction: for the Gaussian density, `φ z = z - μ` satisfies
`L φ = -(1/v) φ`. -/
theorem generator_gaussianPDFReal (μ : ℝ) {v : ℝ≥0} (hv : v ≠ 0) (z : ℝ) :
    generator (gaussianPDFReal μ v) (fun y => y - μ) z = -(1 / (v : ℝ)) * (z - μ) := by
  have h1 : deriv (fun y : ℝ => y - μ) = fun _ => 1 := by
    funext y
    exact ((hasDerivAt_id' y).sub_const μ).deriv
  have hd1 : deriv (fun y : ℝ => y - μ) z = 1 := congrFun h1 z
  have hd2 : deriv (deriv (fun y : ℝ => y - μ)) z = 0 := by
    rw [h1]
    exact deriv_const z (1 : ℝ)
  rw [generator, hd2, hd1, score_gaussianPDFReal μ hv z]
  ring

/-! ### Non-vacuity: the Gaussian density meets every hypothesis of the two headline theorems -/

/-- **Non-vacuity of `gaussian_of_affine_score`.** For `v ≠ 0`, `gaussianPDFReal μ v` is
positive, differentiable, has the affine score `(-1/v) z + μ/v`, and integrates to `1`. -/
theorem gaussianPDFReal_meets_affine_score (μ : ℝ) {v : ℝ≥0} (hv : v ≠ 0) :
    (∀ z, 0 < gaussianPDFReal μ v z) ∧ Differentiable ℝ (gaussianPDFReal μ v) ∧
      (∀ z, score (gaussianPDFReal μ v) z = (-1 / (v : ℝ)) * z + μ / (v : ℝ)) ∧
      ∫ z, gaussianPDFReal μ v z = 1 := by
  have hvR : (v : ℝ) ≠ 0 := NNReal.coe_ne_zero.mpr hv
  have hinv : (v : ℝ) * (v : ℝ)⁻¹ = 1 := mul_inv_cancel₀ hvR
  have ha : (-1 / (v : ℝ)) * v = -1 := by linear_combination (-1 : ℝ) * hinv
  have hb : (μ / (v : ℝ)) * v = μ := by linear_combination μ * hinv
  have hform := gaussianPDFReal_eq_mul_exp μ v hvR ha hb
  refine ⟨fun z => gaussianPDFReal_pos μ v z hv,
    fun z => (hasDerivAt_of_eq_mul_exp hform z).differentiableAt, fun z => ?_,
    integral_gaussianPDFReal_eq_one μ hv⟩
  rw [score_gaussianPDFReal μ hv z]
  ring

/-- The witness plugged into `gaussian_of_affine_score` (with `a = -1/v`, `b = μ/v`). -/
theorem gaussian_of_affine_score_applies (μ : ℝ) {v : ℝ≥0} (hv : v ≠ 0) :
    -1 / (v : ℝ) < 0 ∧ ∀ z, gaussianPDFReal μ v z =
      gaussianPDFReal (-(μ / (v : ℝ)) / (-1 / (v : ℝ)))
        (Real.toNNReal (-1 / (-1 / (v : ℝ)))) z := by
  obtain ⟨h1, h2, h3, h4⟩ := gaussianPDFReal_meets_affine_score μ hv
  exact gaussian_of_affine_score h1 h2 h3 h4

/-- **Non-vacuity of `gaussian_of_affine_eigenfunction`.** For `v ≠ 0`, the affine function
`1 · z + (-μ)` is an eigenfunction of the generator of `gaussianPDFReal μ v` with eigenvalue
`-(1/v)` (the remaining hypotheses are those of `gaussianPDFReal_meets_affine_score`). -/
theorem gaussianPDFReal_meets_affine_eigenfunction (μ : ℝ) {v : ℝ≥0} (hv : v ≠ 0) (z : ℝ) :
    generator (gaussianPDFReal μ v) (fun z => 1 * z + -μ) z = -(1 / (v : ℝ)) * (1 * z + -μ) := by
  have hfun : (fun z : ℝ => 1 * z + -μ) = fun y => y - μ := funext fun y => by ring
  rw [hfun, generator_gaussianPDFReal μ hv z]
  ring

/-- The witness plugged into `gaussian_of_affine_eigenfunction` (`α = 1`, `β = -μ`, `λ = 1/v`). -/
theorem gaussian_of_affine_eigenfunction_applies (μ : ℝ) {v : ℝ≥0} (hv : v ≠ 0) :
    0 < 1 / (v : ℝ) ∧ ∀ z, gaussianPDFReal μ v z =
      gaussianPDFReal (-(-μ) / 1) (Real.toNNReal (1 / (1 / (v : ℝ)))) z := by
  obtain ⟨h1, h2, -, h4⟩ := gaussianPDFReal_meets_affine_score μ hv
  exact gaussian_of_affine_eigenfunction h1 h2 one_ne_zero
    (gaussianPDFReal_meets_affine_eigenfunction μ hv) h4

end Lejepa.Uniqueness
