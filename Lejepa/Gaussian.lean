import Mathlib

-- All of Mathlib is imported on purpose, as in the other modules: no Lean toolchain was available
-- where this file was written, and a missing transitive import would break the build.

/-!
# Hermite orthogonality and Mehler's formula under the standard Gaussian measure

The proof of Theorem 4.1 of the paper expands an encoder in Hermite polynomials and uses two
facts about the standard Gaussian `z ~ N(0, 1)` and its Ornstein–Uhlenbeck partner
`z' = ρ z + σ η` (`η` an independent copy, `σ² = 1 - ρ²`):

* orthogonality, `E[He_m(z) He_n(z)] = [m = n] n!`;
* Mehler's formula, `E[He_m(z) He_n(z')] = [m = n] n! ρⁿ`.

`Lejepa.Hermite` and `Lejepa.Approx` take these as the *definitions* of the moments of their
coefficient model. This file proves both as statements about integrals
against Mathlib's `ProbabilityTheory.gaussianReal 0 1`, for the Hermite polynomials `hermiteReal n`
= Mathlib's `Polynomial.hermite n` mapped to `ℝ[X]` (the same polynomials as
`Lejepa.Hermite.hermiteR`, by the same definition), and their products over finitely many
coordinates under `Measure.pi`. Only `Lejepa.GaussianBridge` imports this module.

## Route

1. Appell property: `derivative_hermite_succ` (`He_{n+1}' = (n+1) He_n` over `ℤ`, by induction
   from `Polynomial.hermite_succ`), mapped to `ℝ` as `derivative_hermiteReal_succ`; hence the
   three-term recurrence `hermiteReal_succ_succ` (`He_{n+2} = X He_{n+1} - (n+1) He_n`).
2. Stein's identity for polynomials: `polyMean p := ∫ x, φ x * p(x)` with `φ = gaussianPDFReal 0 1`
   (a Lebesgue integral against the density); `polyMean_X_mul`: `polyMean (X * p) = polyMean p'`,
   by Mathlib's integration by parts on `ℝ` (`integral_mul_deriv_eq_deriv_mul_of_integrable`) and
   `φ' = -x φ` (`hasDerivAt_stdGaussianPDF`). Integrability of `φ · p` is its own lemma
   (`integrable_pdf_mul_eval`, from `integrable_rpow_mul_exp_neg_mul_sq`); `polyMean` is additive
   and `ℝ`-homogeneous (`polyMean_add`, `polyMean_sub`, `polyMean_C_mul`), and
   `integral_gaussianReal_eval` identifies it with the integral under `gaussianReal 0 1`.
3. Orthogonality: `polyMean_hermiteReal_succ_mul` (`E[He_{n+1} q] = E[He_n q']`, from 1 and 2),
   then `polyMean_hermiteReal_mul` by induction; `integral_hermiteReal_mul_gaussianReal`.
4. Mehler, conditional form: for `σ² = 1 - ρ²`,
   `∫ He_n(ρ x + σ y) dγ(y) = ρⁿ He_n(x)` (`integral_hermiteReal_affine_gaussianReal`): Stein in
   `y` gives `g_{n+2} = ρ x g_{n+1} + (σ² - 1)(n+1) g_n = ρ x g_{n+1} - ρ² (n+1) g_n`, the
   recurrence that `ρⁿ He_n(x)` satisfies (`polyMean_hermiteReal_comp`, two-step induction).
5. Cross-moments: `integral_integral_hermiteReal_ou`,
   `∫∫ He_m(x) He_n(ρ x + σ y) dγ(y) dγ(x) = [m = n] n! ρⁿ` (iterated integral; no Fubini needed).
6. Finitely many coordinates: for `z ~ N(0, I)` on `ι → ℝ`
   (`Measure.pi (fun _ => gaussianReal 0 1)`,
   `hermiteProd α z = ∏_j He_{α j}(z j)`), `integral_hermiteProd_mul`
   (`E[He_α He_β] = [α = β] ∏_j (β j)!`) and `integral_integral_hermiteProd_ou`
   (`E[He_α(z) He_β(ρ z + σ η)] = [α = β] (∏_j (β j)!) ρ^(∑_j β j)`), each by Mathlib's
   `integral_fintype_prod_eq_prod` and the one-coordinate results.

`Lejepa.GaussianBridge` restates 6 for the coefficient model's `hermiteMulti`, `mfact` and `deg`.
Not here: the encoder's moments as integrals of `encoderEval`, so Theorems 4.1 and 4.3 are not yet
restated with integral hypotheses; see `docs/lean-reviews/gaussian-notes.md`.
-/

namespace Lejepa.Gaussian

open Polynomial MeasureTheory ProbabilityTheory

noncomputable section

/-! ## Step 1: the Appell property -/

/-- Appell property of the probabilists' Hermite polynomials over `ℤ`:
`He_{n+1}' = (n + 1) He_n`, with the factor written as the constant polynomial `C (n + 1)`. -/
theorem derivative_hermite_succ (n : ℕ) :
    derivative (hermite (n + 1)) = C ((n : ℤ) + 1) * hermite n := by
  induction n with
  | zero =>
    show derivative (hermite 1) = C (((0 : ℕ) : ℤ) + 1) * hermite 0
    rw [hermite_one, derivative_X, hermite_zero, Nat.cast_zero, zero_add, C_1, one_mul]
  | succ n ih =>
    rw [hermite_succ (n + 1), derivative_sub, derivative_mul, derivative_X, one_mul, ih,
      derivative_C_mul]
    rw [show ((n + 1 : ℕ) : ℤ) = (n : ℤ) + 1 by omega]
    simp only [C_add, C_1]
    linear_combination (-(C (n : ℤ) + 1)) * hermite_succ n

/-- The probabilists' Hermite polynomial `He_n`, Mathlib's `Polynomial.hermite n` mapped to `ℝ[X]`
(the same definition as `Lejepa.Hermite.hermiteR`). -/
def hermiteReal (n : ℕ) : ℝ[X] :=
  (hermite n).map (Int.castRingHom ℝ)

theorem hermiteReal_zero : hermiteReal 0 = 1 := by
  rw [hermiteReal, hermite_zero, C_1, Polynomial.map_one]

theorem hermiteReal_one : hermiteReal 1 = X := by
  rw [hermiteReal, hermite_one, Polynomial.map_X]

/-- `He_{n+1} = X He_n - He_n'` over `ℝ`. -/
theorem hermiteReal_succ (n : ℕ) :
    hermiteReal (n + 1) = X * hermiteReal n - derivative (hermiteReal n) := by
  simp only [hermiteReal]
  rw [hermite_succ, Polynomial.map_sub, Polynomial.map_mul, Polynomial.map_X,
    Polynomial.derivative_map]

set_option backward.isDefEq.respectTransparency false in
/-- Appell property over `ℝ`: `He_{n+1}' = (n + 1) He_n`. -/
theorem derivative_hermiteReal_succ (n : ℕ) :
    derivative (hermiteReal (n + 1)) = C ((n : ℝ) + 1) * hermiteReal n := by
  -- `map_natCast` and `map_one` as equations with this file's instances (checked at default
  -- transparency), so that the rewrites below match syntactically
  have h1 : (Int.castRingHom ℝ) (n : ℤ) = (n : ℝ) := map_natCast (Int.castRingHom ℝ) n
  have h2 : (Int.castRingHom ℝ) (1 : ℤ) = 1 := map_one (Int.castRingHom ℝ)
  simp only [hermiteReal]
  rw [Polynomial.derivative_map, derivative_hermite_succ, Polynomial.map_mul, Polynomial.map_C,
    map_add, h1, h2]
  all_goals rfl

/-- Three-term recurrence: `He_{n+2} = X He_{n+1} - (n + 1) He_n`. -/
theorem hermiteReal_succ_succ (n : ℕ) :
    hermiteReal (n + 1 + 1) = X * hermiteReal (n + 1) - C ((n : ℝ) + 1) * hermiteReal n := by
  rw [hermiteReal_succ (n + 1), derivative_hermiteReal_succ]

/-- The recurrence evaluated: `He_{n+2}(x) = x He_{n+1}(x) - (n + 1) He_n(x)`. -/
theorem eval_hermiteReal_succ_succ (n : ℕ) (x : ℝ) :
    (hermiteReal (n + 1 + 1)).eval x =
      x * (hermiteReal (n + 1)).eval x - ((n : ℝ) + 1) * (hermiteReal n).eval x := by
  rw [hermiteReal_succ_succ]
  simp only [Polynomial.eval_sub, Polynomial.eval_mul, Polynomial.eval_X, Polynomial.eval_C]

/-! ## The standard Gaussian density -/

/-- `gaussianPDFReal 0 1 x = (√(2π))⁻¹ exp(-x²/2)`. -/
theorem stdGaussianPDF_eq (x : ℝ) :
    gaussianPDFReal 0 1 x = (Real.sqrt (2 * Real.pi))⁻¹ * Real.exp (-x ^ 2 / 2) := by
  simp only [gaussianPDFReal, NNReal.coe_one, mul_one, sub_zero]

/-- The density's derivative: `φ'(x) = -x φ(x)`. -/
theorem hasDerivAt_stdGaussianPDF (x : ℝ) :
    HasDerivAt (gaussianPDFReal 0 1) (-x * gaussianPDFReal 0 1 x) x := by
  have h2 : HasDerivAt (fun y : ℝ => y ^ 2) (2 * x) x :=
    (hasDerivAt_pow 2 x).congr_deriv (by norm_num)
  have h := ((h2.fun_neg.div_const 2).exp).const_mul (Real.sqrt (2 * Real.pi))⁻¹
  have hf : gaussianPDFReal 0 1 =
      fun y => (Real.sqrt (2 * Real.pi))⁻¹ * Real.exp (-y ^ 2 / 2) :=
    _root_.funext stdGaussianPDF_eq
  have hv : -x * gaussianPDFReal 0 1 x =
      (Real.sqrt (2 * Real.pi))⁻¹ * (Real.exp (-x ^ 2 / 2) * (-(2 * x) / 2)) := by
    rw [stdGaussianPDF_eq]
    ring
  rw [hv, hf]
  exact h

/-! ## Step 2: integrability, the Gaussian mean of a polynomial, Stein's identity -/

/-- A monomial times the density is integrable (from `integrable_rpow_mul_exp_neg_mul_sq`). -/
theorem integrable_pdf_mul_monomial (n : ℕ) (a : ℝ) :
    Integrable (fun x => gaussianPDFReal 0 1 x * (monomial n a).eval x) := by
  have hs : (-1 : ℝ) < (n : ℝ) := lt_of_lt_of_le (by norm_num) (Nat.cast_nonneg n)
  have h := (integrable_rpow_mul_exp_neg_mul_sq (b := 1 / 2) (by norm_num) hs).const_mul
    (a * (Real.sqrt (2 * Real.pi))⁻¹)
  have hx : ∀ x : ℝ, a * (Real.sqrt (2 * Real.pi))⁻¹ *
      (x ^ (n : ℝ) * Real.exp (-(1 / 2) * x ^ 2)) =
        gaussianPDFReal 0 1 x * (monomial n a).eval x := by
    intro x
    rw [Polynomial.eval_monomial, stdGaussianPDF_eq, Real.rpow_natCast]
    have he : -(1 / 2) * x ^ 2 = -x ^ 2 / 2 := by ring
    rw [he]
    ring
  exact h.congr (ae_of_all _ hx)

/-- A polynomial times the standard Gaussian density is Lebesgue integrable. -/
theorem integrable_pdf_mul_eval (p : ℝ[X]) :
    Integrable (fun x => gaussianPDFReal 0 1 x * p.eval x) := by
  induction p using Polynomial.induction_on' with
  | add p q hp hq =>
    have hx : ∀ x : ℝ, gaussianPDFReal 0 1 x * p.eval x + gaussianPDFReal 0 1 x * q.eval x =
        gaussianPDFReal 0 1 x * (p + q).eval x := by
      intro x
      rw [Polynomial.eval_add, mul_add]
    exact (hp.fun_add hq).congr (ae_of_all _ hx)
  | monomial n a => exact integrable_pdf_mul_monomial n a

/-- The integrand `φ'(x) p(x) = -x φ(x) p(x)` of the integration by parts is integrable. -/
theorem integrable_neg_mul_pdf_mul_eval (p : ℝ[X]) :
    Integrable (fun x => (-x * gaussianPDFReal 0 1 x) * p.eval x) := by
  have hx : ∀ x : ℝ, gaussianPDFReal 0 1 x * (-(X * p)).eval x =
      (-x * gaussianPDFReal 0 1 x) * p.eval x := by
    intro x
    rw [Polynomial.eval_neg, Polynomial.eval_mul, Polynomial.eval_X]
    ring
  exact (integrable_pdf_mul_eval (-(X * p))).congr (ae_of_all _ hx)

/-- The mean of a polynomial under the standard Gaussian, as a Lebesgue integral against the
density: `polyMean p = ∫ φ(x) p(x) dx`. -/
def polyMean (p : ℝ[X]) : ℝ :=
  ∫ x, gaussianPDFReal 0 1 x * p.eval x

/-- Bridge to Mathlib's Gaussian measure: `∫ p d(gaussianReal 0 1) = polyMean p`. -/
theorem integral_gaussianReal_eval (p : ℝ[X]) :
    ∫ x, p.eval x ∂(gaussianReal 0 1) = polyMean p :=
  -- term mode: the lemma's right side `∫ φ x • p(x)` is compared with `polyMean p` (unfolded) at
  -- default transparency, where `•` on `ℝ` is `*`
  integral_gaussianReal_eq_integral_smul (one_ne_zero : (1 : NNReal) ≠ 0)

theorem polyMean_add (p q : ℝ[X]) : polyMean (p + q) = polyMean p + polyMean q := by
  have h : (fun x => gaussianPDFReal 0 1 x * (p + q).eval x) =
      fun x => gaussianPDFReal 0 1 x * p.eval x + gaussianPDFReal 0 1 x * q.eval x := by
    funext x
    rw [Polynomial.eval_add, mul_add]
  simp only [polyMean]
  rw [h]
  exact integral_add (integrable_pdf_mul_eval p) (integrable_pdf_mul_eval q)

theorem polyMean_sub (p q : ℝ[X]) : polyMean (p - q) = polyMean p - polyMean q := by
  have h : (fun x => gaussianPDFReal 0 1 x * (p - q).eval x) =
      fun x => gaussianPDFReal 0 1 x * p.eval x - gaussianPDFReal 0 1 x * q.eval x := by
    funext x
    rw [Polynomial.eval_sub, mul_sub]
  simp only [polyMean]
  rw [h]
  exact integral_sub (integrable_pdf_mul_eval p) (integrable_pdf_mul_eval q)

theorem polyMean_C_mul (c : ℝ) (p : ℝ[X]) : polyMean (C c * p) = c * polyMean p := by
  have h : (fun x => gaussianPDFReal 0 1 x * (C c * p).eval x) =
      fun x => c * (gaussianPDFReal 0 1 x * p.eval x) := by
    funext x
    rw [Polynomial.eval_mul, Polynomial.eval_C]
    ring
  simp only [polyMean]
  rw [h]
  exact integral_const_mul c _

theorem polyMean_zero : polyMean 0 = 0 := by
  simp only [polyMean, Polynomial.eval_zero, mul_zero, integral_zero]

theorem polyMean_one : polyMean 1 = 1 := by
  simp only [polyMean, Polynomial.eval_one, mul_one]
  exact integral_gaussianPDFReal_eq_one 0 (one_ne_zero : (1 : NNReal) ≠ 0)

/-- **Stein's identity** for polynomials under `N(0, 1)`: `E[Z p(Z)] = E[p'(Z)]`, here
`∫ φ(x) x p(x) dx = ∫ φ(x) p'(x) dx`, by integration by parts with `φ' = -x φ`. -/
theorem polyMean_X_mul (p : ℝ[X]) : polyMean (X * p) = polyMean (derivative p) := by
  have huv' : Integrable (gaussianPDFReal 0 1 * (fun x : ℝ => (derivative p).eval x)) :=
    integrable_pdf_mul_eval (derivative p)
  have hu'v : Integrable ((fun x : ℝ => -x * gaussianPDFReal 0 1 x) * (fun x : ℝ => p.eval x)) :=
    integrable_neg_mul_pdf_mul_eval p
  have huv : Integrable (gaussianPDFReal 0 1 * (fun x : ℝ => p.eval x)) :=
    integrable_pdf_mul_eval p
  have h : ∫ x, gaussianPDFReal 0 1 x * (derivative p).eval x =
      -∫ x, (-x * gaussianPDFReal 0 1 x) * p.eval x :=
    integral_mul_deriv_eq_deriv_mul_of_integrable (u := gaussianPDFReal 0 1)
      (v := fun x => p.eval x) (u' := fun x => -x * gaussianPDFReal 0 1 x)
      (v' := fun x => (derivative p).eval x) (fun x _ => hasDerivAt_stdGaussianPDF x)
      (fun x _ => p.hasDerivAt x) huv' hu'v huv
  have h1 : (fun x => (-x * gaussianPDFReal 0 1 x) * p.eval x) =
      fun x => -(gaussianPDFReal 0 1 x * (X * p).eval x) := by
    funext x
    rw [Polynomial.eval_mul, Polynomial.eval_X]
    ring
  -- `integral_neg` as a term (default transparency), then rewrites on this file's own terms only
  have h2 : ∫ x, (-x * gaussianPDFReal 0 1 x) * p.eval x =
      -∫ x, gaussianPDFReal 0 1 x * (X * p).eval x := by
    rw [h1]
    exact integral_neg fun x => gaussianPDFReal 0 1 x * (X * p).eval x
  have h3 : ∫ x, gaussianPDFReal 0 1 x * (derivative p).eval x =
      ∫ x, gaussianPDFReal 0 1 x * (X * p).eval x := by
    rw [h, h2, neg_neg]
  exact h3.symm

/-- **Stein's identity** under Mathlib's Gaussian measure: for every real polynomial `p`,
`∫ x p(x) d(gaussianReal 0 1) = ∫ p'(x) d(gaussianReal 0 1)`. -/
theorem integral_mul_eval_gaussianReal (p : ℝ[X]) :
    ∫ x, x * p.eval x ∂(gaussianReal 0 1) = ∫ x, (derivative p).eval x ∂(gaussianReal 0 1) := by
  have h : (fun x => x * p.eval x) = fun x => (X * p).eval x := by
    funext x
    rw [Polynomial.eval_mul, Polynomial.eval_X]
  rw [h, integral_gaussianReal_eval, integral_gaussianReal_eval, polyMean_X_mul]

/-! ## Step 3: orthogonality -/

/-- `E[He_{n+1} q] = E[He_n q']` for every real polynomial `q` (Stein plus the recurrence). -/
theorem polyMean_hermiteReal_succ_mul (n : ℕ) (q : ℝ[X]) :
    polyMean (hermiteReal (n + 1) * q) = polyMean (hermiteReal n * derivative q) := by
  have h : hermiteReal (n + 1) * q =
      X * (hermiteReal n * q) - derivative (hermiteReal n) * q := by
    rw [hermiteReal_succ]
    ring
  rw [h, polyMean_sub, polyMean_X_mul, derivative_mul, polyMean_add]
  ring

/-- `E[He_{n+1}] = 0`. -/
theorem polyMean_hermiteReal_succ (n : ℕ) : polyMean (hermiteReal (n + 1)) = 0 := by
  have h := polyMean_hermiteReal_succ_mul n 1
  rw [mul_one, derivative_one, mul_zero, polyMean_zero] at h
  exact h

set_option backward.isDefEq.respectTransparency false in
/-- Orthogonality, polynomial form: `E[He_m He_n] = [m = n] n!`. -/
theorem polyMean_hermiteReal_mul (m n : ℕ) :
    polyMean (hermiteReal m * hermiteReal n) = if m = n then (n.factorial : ℝ) else 0 := by
  induction m generalizing n with
  | zero =>
    cases n with
    | zero =>
      rw [hermiteReal_zero, mul_one, polyMean_one, if_pos rfl, Nat.factorial_zero, Nat.cast_one]
      all_goals rfl
    | succ k =>
      rw [hermiteReal_zero, one_mul, polyMean_hermiteReal_succ,
        if_neg (show ¬((0 : ℕ) = k + 1) by omega)]
  | succ m ih =>
    cases n with
    | zero =>
      rw [hermiteReal_zero, mul_one, polyMean_hermiteReal_succ,
        if_neg (show ¬(m + 1 = (0 : ℕ)) by omega)]
    | succ k =>
      rw [polyMean_hermiteReal_succ_mul, derivative_hermiteReal_succ, mul_left_comm,
        polyMean_C_mul, ih k]
      by_cases hmk : m = k
      · rw [if_pos hmk, if_pos (show m + 1 = k + 1 by omega), Nat.factorial_succ, Nat.cast_mul,
          Nat.cast_add, Nat.cast_one]
        all_goals rfl
      · rw [if_neg hmk, if_neg (show ¬(m + 1 = k + 1) by omega), mul_zero]

/-- **Hermite orthogonality** under `N(0, 1)` (the fact behind the paper's `Var h_i = Σ c² α!`
and `E[He_α He_β] = [α = β] α!`, one coordinate): for all `m n : ℕ`,
`∫ He_m(x) He_n(x) d(gaussianReal 0 1) = if m = n then n! else 0`. -/
theorem integral_hermiteReal_mul_gaussianReal (m n : ℕ) :
    ∫ x, (hermiteReal m).eval x * (hermiteReal n).eval x ∂(gaussianReal 0 1) =
      if m = n then (n.factorial : ℝ) else 0 := by
  have h : (fun x => (hermiteReal m).eval x * (hermiteReal n).eval x) =
      fun x => (hermiteReal m * hermiteReal n).eval x := by
    funext x
    rw [Polynomial.eval_mul]
  rw [h, integral_gaussianReal_eval, polyMean_hermiteReal_mul]

/-! ## Step 4: Mehler's formula, conditional form -/

/-- `E[(a + σ Z) P(Z)] = a E[P(Z)] + σ E[P'(Z)]` (Stein). -/
theorem polyMean_affine_mul (a σ : ℝ) (P : ℝ[X]) :
    polyMean ((C a + C σ * X) * P) = a * polyMean P + σ * polyMean (derivative P) := by
  rw [add_mul, polyMean_add, polyMean_C_mul, mul_assoc, polyMean_C_mul, polyMean_X_mul]

/-- `E[a + σ Z] = a`. -/
theorem polyMean_affine (a σ : ℝ) : polyMean (C a + C σ * X) = a := by
  have h := polyMean_affine_mul a σ 1
  rw [mul_one, polyMean_one, derivative_one, polyMean_zero] at h
  rw [h]
  ring

/-- The recurrence composed with `y ↦ ρ x + σ y`. -/
theorem hermiteReal_succ_succ_comp (ρ σ x : ℝ) (n : ℕ) :
    (hermiteReal (n + 1 + 1)).comp (C (ρ * x) + C σ * X) =
      (C (ρ * x) + C σ * X) * (hermiteReal (n + 1)).comp (C (ρ * x) + C σ * X) -
        C ((n : ℝ) + 1) * (hermiteReal n).comp (C (ρ * x) + C σ * X) := by
  rw [hermiteReal_succ_succ]
  simp only [Polynomial.sub_comp, Polynomial.mul_comp, Polynomial.X_comp, Polynomial.C_comp]

/-- Chain rule: `d/dy He_{n+1}(ρ x + σ y) = σ (n + 1) He_n(ρ x + σ y)`. -/
theorem derivative_hermiteReal_succ_comp (ρ σ x : ℝ) (n : ℕ) :
    derivative ((hermiteReal (n + 1)).comp (C (ρ * x) + C σ * X)) =
      C σ * (C ((n : ℝ) + 1) * (hermiteReal n).comp (C (ρ * x) + C σ * X)) := by
  rw [Polynomial.derivative_comp, derivative_hermiteReal_succ, Polynomial.mul_comp,
    Polynomial.C_comp, derivative_add, derivative_C, zero_add, derivative_C_mul_X]

/-- The two-step induction step of the conditional Mehler formula. -/
theorem polyMean_hermiteReal_comp_step {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (x : ℝ) (n : ℕ)
    (h0 : polyMean ((hermiteReal n).comp (C (ρ * x) + C σ * X)) =
      ρ ^ n * (hermiteReal n).eval x)
    (h1 : polyMean ((hermiteReal (n + 1)).comp (C (ρ * x) + C σ * X)) =
      ρ ^ (n + 1) * (hermiteReal (n + 1)).eval x) :
    polyMean ((hermiteReal (n + 1 + 1)).comp (C (ρ * x) + C σ * X)) =
      ρ ^ (n + 1 + 1) * (hermiteReal (n + 1 + 1)).eval x := by
  rw [hermiteReal_succ_succ_comp, polyMean_sub, polyMean_affine_mul, polyMean_C_mul,
    derivative_hermiteReal_succ_comp, polyMean_C_mul, polyMean_C_mul, h0, h1,
    eval_hermiteReal_succ_succ]
  linear_combination ((n : ℝ) + 1) * ρ ^ n * (hermiteReal n).eval x * hσ

/-- Both consecutive cases of the conditional Mehler formula, by induction on `n`. -/
theorem polyMean_hermiteReal_comp_pair {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (x : ℝ) (n : ℕ) :
    polyMean ((hermiteReal n).comp (C (ρ * x) + C σ * X)) = ρ ^ n * (hermiteReal n).eval x ∧
      polyMean ((hermiteReal (n + 1)).comp (C (ρ * x) + C σ * X)) =
        ρ ^ (n + 1) * (hermiteReal (n + 1)).eval x := by
  induction n with
  | zero =>
    refine ⟨?_, ?_⟩
    · rw [hermiteReal_zero, Polynomial.one_comp, polyMean_one, pow_zero, Polynomial.eval_one,
        one_mul]
    · show polyMean ((hermiteReal 1).comp (C (ρ * x) + C σ * X)) =
        ρ ^ 1 * (hermiteReal 1).eval x
      rw [hermiteReal_one, Polynomial.X_comp, polyMean_affine, pow_one, Polynomial.eval_X]
  | succ n ih => exact ⟨ih.2, polyMean_hermiteReal_comp_step hσ x n ih.1 ih.2⟩

/-- Conditional Mehler formula, polynomial form: `E[He_n(ρ x + σ Z)] = ρⁿ He_n(x)`. -/
theorem polyMean_hermiteReal_comp {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (x : ℝ) (n : ℕ) :
    polyMean ((hermiteReal n).comp (C (ρ * x) + C σ * X)) = ρ ^ n * (hermiteReal n).eval x :=
  (polyMean_hermiteReal_comp_pair hσ x n).1

/-- **Mehler's formula, conditional form** (the step `E[He_n(z') | z] = ρⁿ He_n(z)` behind the
paper's `corr_i = Σ_d w_{i,d} ρ^d`, one coordinate): for `σ² = 1 - ρ²`, every `x` and `n`,
`∫ He_n(ρ x + σ y) d(gaussianReal 0 1)(y) = ρⁿ He_n(x)`. -/
theorem integral_hermiteReal_affine_gaussianReal {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (x : ℝ)
    (n : ℕ) :
    ∫ y, (hermiteReal n).eval (ρ * x + σ * y) ∂(gaussianReal 0 1) =
      ρ ^ n * (hermiteReal n).eval x := by
  have h : (fun y => (hermiteReal n).eval (ρ * x + σ * y)) =
      fun y => ((hermiteReal n).comp (C (ρ * x) + C σ * X)).eval y := by
    funext y
    rw [Polynomial.eval_comp, Polynomial.eval_add, Polynomial.eval_mul, Polynomial.eval_C,
      Polynomial.eval_C, Polynomial.eval_X]
  rw [h, integral_gaussianReal_eval, polyMean_hermiteReal_comp hσ]

/-! ## Step 5: the Ornstein–Uhlenbeck cross-moments -/

/-- **Mehler's cross-moments** (the paper's `E[He_α(z) He_β(z')] = [α = β] α! ρ^|α|`, one
coordinate): for `σ² = 1 - ρ²` and the OU pair `z' = ρ z + σ η` with `z, η` independent standard
Gaussians, written as an iterated integral,
`∫∫ He_m(x) He_n(ρ x + σ y) dγ(y) dγ(x) = if m = n then n! ρⁿ else 0`. -/
theorem integral_integral_hermiteReal_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (m n : ℕ) :
    ∫ x, (∫ y, (hermiteReal m).eval x * (hermiteReal n).eval (ρ * x + σ * y)
        ∂(gaussianReal 0 1)) ∂(gaussianReal 0 1) =
      if m = n then (n.factorial : ℝ) * ρ ^ n else 0 := by
  have hin : (fun x => ∫ y, (hermiteReal m).eval x * (hermiteReal n).eval (ρ * x + σ * y)
      ∂(gaussianReal 0 1)) = fun x => ρ ^ n * (hermiteReal m * hermiteReal n).eval x := by
    funext x
    -- `integral_const_mul` (stated for `[RCLike L]`) as an equation with this file's instances, so
    -- that the next rewrites see syntactically equal terms
    have h1 : ∫ y, (hermiteReal m).eval x * (hermiteReal n).eval (ρ * x + σ * y)
        ∂(gaussianReal 0 1) =
        (hermiteReal m).eval x * ∫ y, (hermiteReal n).eval (ρ * x + σ * y) ∂(gaussianReal 0 1) :=
      integral_const_mul ((hermiteReal m).eval x) (fun y => (hermiteReal n).eval (ρ * x + σ * y))
    rw [h1, integral_hermiteReal_affine_gaussianReal hσ, Polynomial.eval_mul]
    ring
  have h2 : ∫ x, ρ ^ n * (hermiteReal m * hermiteReal n).eval x ∂(gaussianReal 0 1) =
      ρ ^ n * ∫ x, (hermiteReal m * hermiteReal n).eval x ∂(gaussianReal 0 1) :=
    integral_const_mul (ρ ^ n) (fun x => (hermiteReal m * hermiteReal n).eval x)
  rw [hin, h2, integral_gaussianReal_eval, polyMean_hermiteReal_mul]
  by_cases hmn : m = n
  · rw [if_pos hmn, if_pos hmn]
    ring
  · rw [if_neg hmn, if_neg hmn, mul_zero]
    all_goals rfl

/-! ## Step 6: finitely many coordinates, under the product measure -/

section Multivariate

variable {ι : Type*} [Fintype ι]

/-- The multivariate Hermite function `He_α(z) = ∏_j He_{α j}(z j)` for `α : ι → ℕ` (the same
product as `Lejepa.Hermite.hermiteMulti`, there with `α` a `Finsupp`). -/
def hermiteProd (α : ι → ℕ) (z : ι → ℝ) : ℝ :=
  ∏ j, (hermiteReal (α j)).eval (z j)

/-- `∏_j [α j = β j] c_j = [α = β] ∏_j c_j`. -/
theorem prod_ite_eq_ite_prod (α β : ι → ℕ) (c : ι → ℝ) :
    ∏ j, (if α j = β j then c j else 0) = if α = β then ∏ j, c j else 0 := by
  by_cases h : α = β
  · rw [if_pos h]
    exact Finset.prod_congr rfl fun j _ => if_pos (congrFun h j)
  · rw [if_neg h]
    obtain ⟨j, hj⟩ := Function.ne_iff.mp h
    exact Finset.prod_eq_zero (Finset.mem_univ j) (if_neg hj)

/-- One coordinate of the cross-moment: `E[He_m(Z) (c He_n(Z))] = [m = n] n! c`. -/
theorem integral_hermiteReal_mul_const_mul (m n : ℕ) (c : ℝ) :
    ∫ x, (hermiteReal m).eval x * (c * (hermiteReal n).eval x) ∂(gaussianReal 0 1) =
      if m = n then (n.factorial : ℝ) * c else 0 := by
  have h : (fun x => (hermiteReal m).eval x * (c * (hermiteReal n).eval x)) =
      fun x => c * ((hermiteReal m).eval x * (hermiteReal n).eval x) := by
    funext x
    ring
  -- `integral_const_mul` (stated for `[RCLike L]`) as an equation with this file's instances, as in
  -- `integral_integral_hermiteReal_ou`
  have h1 : ∫ x, c * ((hermiteReal m).eval x * (hermiteReal n).eval x) ∂(gaussianReal 0 1) =
      c * ∫ x, (hermiteReal m).eval x * (hermiteReal n).eval x ∂(gaussianReal 0 1) :=
    integral_const_mul c (fun x => (hermiteReal m).eval x * (hermiteReal n).eval x)
  rw [h, h1, integral_hermiteReal_mul_gaussianReal]
  by_cases hmn : m = n
  · rw [if_pos hmn, if_pos hmn]
    ring
  · rw [if_neg hmn, if_neg hmn, mul_zero]
    all_goals rfl

/-- **Hermite orthogonality for `z ~ N(0, I)`** (the paper's `E[He_α(z) He_β(z)] = [α = β] α!`):
under the product measure `Measure.pi (fun _ => gaussianReal 0 1)` on `ι → ℝ`,
`∫ He_α He_β = if α = β then ∏_j (β j)! else 0`. -/
theorem integral_hermiteProd_mul (α β : ι → ℕ) :
    ∫ z, hermiteProd α z * hermiteProd β z ∂(Measure.pi fun _ : ι => gaussianReal 0 1) =
      if α = β then ∏ j, ((β j).factorial : ℝ) else 0 := by
  have h : (fun z : ι → ℝ => hermiteProd α z * hermiteProd β z) =
      fun z => ∏ j, (hermiteReal (α j)).eval (z j) * (hermiteReal (β j)).eval (z j) := by
    funext z
    -- `prod_mul_distrib` with its functions named, compared at default transparency
    -- (`hermiteProd` unfolds there)
    exact (Finset.prod_mul_distrib (s := (Finset.univ : Finset ι))
      (f := fun j => (hermiteReal (α j)).eval (z j))
      (g := fun j => (hermiteReal (β j)).eval (z j))).symm
  calc ∫ z, hermiteProd α z * hermiteProd β z ∂(Measure.pi fun _ : ι => gaussianReal 0 1)
      = ∫ z, ∏ j, (hermiteReal (α j)).eval (z j) * (hermiteReal (β j)).eval (z j)
          ∂(Measure.pi fun _ : ι => gaussianReal 0 1) := by rw [h]
    _ = ∏ j, ∫ x, (hermiteReal (α j)).eval x * (hermiteReal (β j)).eval x
          ∂(gaussianReal 0 1) :=
        integral_fintype_prod_eq_prod (E := fun _ => ℝ) (μ := fun _ : ι => gaussianReal 0 1)
          (fun j (x : ℝ) => (hermiteReal (α j)).eval x * (hermiteReal (β j)).eval x)
    _ = ∏ j, (if α j = β j then ((β j).factorial : ℝ) else 0) :=
        Finset.prod_congr rfl fun j _ => integral_hermiteReal_mul_gaussianReal (α j) (β j)
    _ = if α = β then ∏ j, ((β j).factorial : ℝ) else 0 := prod_ite_eq_ite_prod α β _

/-- Conditional Mehler on `ι → ℝ`: for `σ² = 1 - ρ²`,
`∫ He_β(ρ z + σ η) dγⁿ(η) = ∏_j ρ^{β j} He_{β j}(z j)`. -/
theorem integral_hermiteProd_affine {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (β : ι → ℕ)
    (z : ι → ℝ) :
    ∫ η, hermiteProd β (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : ι => gaussianReal 0 1) =
      ∏ j, ρ ^ β j * (hermiteReal (β j)).eval (z j) := by
  calc ∫ η, hermiteProd β (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : ι => gaussianReal 0 1)
      = ∏ j, ∫ y, (hermiteReal (β j)).eval (ρ * z j + σ * y) ∂(gaussianReal 0 1) := by
        simp only [hermiteProd]
        exact integral_fintype_prod_eq_prod (E := fun _ => ℝ) (μ := fun _ : ι => gaussianReal 0 1)
          (fun j (y : ℝ) => (hermiteReal (β j)).eval (ρ * z j + σ * y))
    _ = ∏ j, ρ ^ β j * (hermiteReal (β j)).eval (z j) :=
        Finset.prod_congr rfl fun j _ => integral_hermiteReal_affine_gaussianReal hσ (z j) (β j)

/-- **Mehler's cross-moments for `z ~ N(0, I)`** (the paper's
`E[He_α(z) He_β(z')] = [α = β] α! ρ^|α|` for the OU pair `z' = ρ z + σ η`, `η` an independent
copy, `σ² = 1 - ρ²`), as an iterated integral under `Measure.pi (fun _ => gaussianReal 0 1)`:
`= if α = β then (∏_j (β j)!) ρ^(∑_j β j) else 0`. -/
theorem integral_integral_hermiteProd_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (α β : ι → ℕ) :
    ∫ z, (∫ η, hermiteProd α z * hermiteProd β (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : ι => gaussianReal 0 1)) ∂(Measure.pi fun _ : ι => gaussianReal 0 1) =
      if α = β then (∏ j, ((β j).factorial : ℝ)) * ρ ^ (∑ j, β j) else 0 := by
  have hin : (fun z : ι → ℝ => ∫ η, hermiteProd α z * hermiteProd β (fun j => ρ * z j + σ * η j)
      ∂(Measure.pi fun _ : ι => gaussianReal 0 1)) =
      fun z => ∏ j, (hermiteReal (α j)).eval (z j) *
        (ρ ^ β j * (hermiteReal (β j)).eval (z j)) := by
    funext z
    have h1 : ∫ η, hermiteProd α z * hermiteProd β (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : ι => gaussianReal 0 1) =
        hermiteProd α z * ∫ η, hermiteProd β (fun j => ρ * z j + σ * η j)
          ∂(Measure.pi fun _ : ι => gaussianReal 0 1) :=
      integral_const_mul (hermiteProd α z) (fun η => hermiteProd β (fun j => ρ * z j + σ * η j))
    rw [h1, integral_hermiteProd_affine hσ]
    exact (Finset.prod_mul_distrib (s := (Finset.univ : Finset ι))
      (f := fun j => (hermiteReal (α j)).eval (z j))
      (g := fun j => ρ ^ β j * (hermiteReal (β j)).eval (z j))).symm
  calc ∫ z, (∫ η, hermiteProd α z * hermiteProd β (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : ι => gaussianReal 0 1)) ∂(Measure.pi fun _ : ι => gaussianReal 0 1)
      = ∫ z, ∏ j, (hermiteReal (α j)).eval (z j) * (ρ ^ β j * (hermiteReal (β j)).eval (z j))
          ∂(Measure.pi fun _ : ι => gaussianReal 0 1) := by rw [hin]
    _ = ∏ j, ∫ x, (hermiteReal (α j)).eval x * (ρ ^ β j * (hermiteReal (β j)).eval x)
          ∂(gaussianReal 0 1) :=
        integral_fintype_prod_eq_prod (E := fun _ => ℝ) (μ := fun _ : ι => gaussianReal 0 1)
          (fun j (x : ℝ) => (hermiteReal (α j)).eval x * (ρ ^ β j * (hermiteReal (β j)).eval x))
    _ = ∏ j, (if α j = β j then ((β j).factorial : ℝ) * ρ ^ β j else 0) :=
        Finset.prod_congr rfl fun j _ => integral_hermiteReal_mul_const_mul (α j) (β j) (ρ ^ β j)
    _ = if α = β then ∏ j, ((β j).factorial : ℝ) * ρ ^ β j else 0 := prod_ite_eq_ite_prod α β _
    _ = if α = β then (∏ j, ((β j).factorial : ℝ)) * ρ ^ (∑ j, β j) else 0 := by
        -- both lemmas as equations with this file's instances (checked at default transparency),
        -- so that the rewrites below leave two syntactically equal sides
        have hprod : ∏ j, ((β j).factorial : ℝ) * ρ ^ β j =
            (∏ j, ((β j).factorial : ℝ)) * ∏ j, ρ ^ β j :=
          Finset.prod_mul_distrib (f := fun j => ((β j).factorial : ℝ)) (g := fun j => ρ ^ β j)
        have hpow : ∏ j, ρ ^ β j = ρ ^ (∑ j, β j) := Finset.prod_pow_eq_pow_sum Finset.univ β ρ
        rw [hprod, hpow]

end Multivariate

end

end Lejepa.Gaussian
