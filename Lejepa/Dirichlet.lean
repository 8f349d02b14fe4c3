import Mathlib

-- All of Mathlib is imported on purpose: no Lean toolchain was available where these files were
-- written, and a missing transitive import would break the build. Narrow the imports once
-- `lake build` has run.

/-!
# Dirichlet energy of a Gaussian-preserving map (paper, appendix): linear-algebra and Jensen cores

Paper claim (appendix): a `C¹` diffeomorphism `h` with `h(z) ~ N(0, I)` when `z ~ N(0, I)` that
minimises the Dirichlet energy `E ‖J_h(z)‖_F²` is orthogonal. The argument: AM–GM on the singular
values gives `n |det J|^{2/n} ≤ ‖J‖_F²` pointwise; measure preservation gives
`E log |det J_h| = 0`, so Jensen gives `E |det J_h|^{2/n} ≥ 1`; hence `E ‖J_h‖_F² ≥ n`, and the
identity map attains `n`. At equality every `J_h(z)` is orthogonal, so `h` is an isometry, and an
isometry fixing the origin is linear (Mazur–Ulam; in Mathlib this is
`IsometryEquiv.toRealLinearIsometryEquiv`).

What is formalized here:

* (i) AM–GM on singular values, via the eigenvalues of the positive semidefinite matrix `J Jᴴ`
  (for real matrices `Jᴴ = Jᵀ`):
  - `card_le_frobSq_of_abs_det_eq_one`: `|det J| = 1 → n ≤ ∑ᵢⱼ Jᵢⱼ²`;
  - `frobSq_eq_card_iff`: under `|det J| = 1`, equality holds iff `J Jᵀ = 1`;
  - `card_mul_abs_det_rpow_le_frobSq`: for any `J` (`n ≥ 1`): `n |det J|^{2/n} ≤ ∑ᵢⱼ Jᵢⱼ²`.
  The eigenvalue facts used: `det (J Jᴴ) = ∏ λᵢ = |det J|²`, `tr (J Jᴴ) = ∑ λᵢ = ∑ᵢⱼ Jᵢⱼ²`,
  `λᵢ ≥ 0`. The `|det J| = 1` case uses `log x ≤ x - 1` (strict for `x ≠ 1`, which gives the
  equality case); the general case uses Mathlib's weighted AM–GM.
* (ii) Jensen step: `one_le_integral_exp` (`∫ g dμ = 0 → 1 ≤ ∫ exp g dμ` for a probability
  measure, from `x + 1 ≤ exp x`) and `one_le_integral_rpow_of_integral_log_eq_zero`
  (`E log d = 0 → 1 ≤ E d^r`, applied with `d = |det J|`, `r = 2/n`).
* (iii) `card_le_integral_of_pointwise` and the assembled `card_le_integral_frobSq`:
  if `E log |det J(ω)| = 0` then `n ≤ E ‖J(ω)‖_F²` (integrability assumed explicitly).
* Non-vacuity: `card_le_integral_frobSq_witness` — the constant family `J ≡ 1` (the identity map)
  meets every hypothesis of `card_le_integral_frobSq` and attains `E ‖J‖_F² = n`
  (`card_le_integral_frobSq_applies` plugs it in).

Not formalized: that a measure-preserving `C¹` diffeomorphism of `N(0, I)` satisfies
`E log |det J_h| = 0` (change of variables: `log |det J_h(z)| = log p(z) - log p(h(z))` and
`h(z) ~ p`) — it is a hypothesis (`hlog0`) of `card_le_integral_frobSq`; the passage from
"`J_h(z)` orthogonal for almost every `z`" to "`h` is a linear isometry" (continuity of `J_h`,
integration along paths, then Mazur–Ulam); and minimality as a variational statement.
-/

open MeasureTheory
open scoped Matrix

noncomputable section

namespace Lejepa.Dirichlet

/-! ### Positive numbers with product one -/

theorem pos_of_prod_eq_one {ι : Type*} (s : Finset ι) (x : ι → ℝ) (hx : ∀ i ∈ s, 0 ≤ x i)
    (hprod : ∏ i ∈ s, x i = 1) : ∀ i ∈ s, 0 < x i := by
  intro i hi
  refine lt_of_le_of_ne (hx i hi) ?_
  intro h
  rw [Finset.prod_eq_zero hi h.symm] at hprod
  exact zero_ne_one hprod

theorem sum_log_eq_zero_of_prod_eq_one {ι : Type*} (s : Finset ι) (x : ι → ℝ)
    (hx : ∀ i ∈ s, 0 ≤ x i) (hprod : ∏ i ∈ s, x i = 1) : ∑ i ∈ s, Real.log (x i) = 0 := by
  have hpos := pos_of_prod_eq_one s x hx hprod
  rw [← Real.log_prod (fun i hi => (hpos i hi).ne'), hprod, Real.log_one]

/-- `∑ᵢ∈s 1 = #s` in `ℝ`, stated with the cast `(s.card : ℝ)` as it is elaborated here. The
lemmas' casts (`nsmul_eq_mul` goes through `NonAssocSemiring`) are matched to ours by `exact` at
default transparency, so that later rewrites and comparisons see one syntactic cast. -/
theorem sum_one_eq_card {ι : Type*} (s : Finset ι) : ∑ _i ∈ s, (1 : ℝ) = (s.card : ℝ) := by
  rw [Finset.sum_const, nsmul_eq_mul]
  exact mul_one _

set_option backward.isDefEq.respectTransparency false in
/-- AM–GM for numbers with product one: `∏ xᵢ = 1`, `xᵢ ≥ 0` ⇒ `#s ≤ ∑ xᵢ`
(from `log x ≤ x - 1`). -/
theorem card_le_sum_of_prod_eq_one {ι : Type*} (s : Finset ι) (x : ι → ℝ)
    (hx : ∀ i ∈ s, 0 ≤ x i) (hprod : ∏ i ∈ s, x i = 1) : (s.card : ℝ) ≤ ∑ i ∈ s, x i := by
  have hpos := pos_of_prod_eq_one s x hx hprod
  have hlog := sum_log_eq_zero_of_prod_eq_one s x hx hprod
  have hle : ∑ i ∈ s, Real.log (x i) ≤ ∑ i ∈ s, (x i - 1) :=
    Finset.sum_le_sum fun i hi => Real.log_le_sub_one_of_pos (hpos i hi)
  rw [hlog, Finset.sum_sub_distrib, sum_one_eq_card s] at hle
  exact sub_nonneg.mp hle

set_option backward.isDefEq.respectTransparency false in
/-- Equality case: `∏ xᵢ = 1`, `xᵢ ≥ 0` and `∑ xᵢ = #s` ⇒ every `xᵢ = 1`. -/
theorem eq_one_of_sum_eq_card {ι : Type*} (s : Finset ι) (x : ι → ℝ)
    (hx : ∀ i ∈ s, 0 ≤ x i) (hprod : ∏ i ∈ s, x i = 1) (hsum : ∑ i ∈ s, x i = s.card) :
    ∀ i ∈ s, x i = 1 := by
  have hpos := pos_of_prod_eq_one s x hx hprod
  have hlog := sum_log_eq_zero_of_prod_eq_one s x hx hprod
  intro j hj
  by_contra hxj
  have hlt : ∑ i ∈ s, Real.log (x i) < ∑ i ∈ s, (x i - 1) :=
    Finset.sum_lt_sum (fun i hi => Real.log_le_sub_one_of_pos (hpos i hi))
      ⟨j, hj, Real.log_lt_sub_one_of_pos (hpos j hj) hxj⟩
  rw [hlog, Finset.sum_sub_distrib, hsum, sum_one_eq_card s, sub_self] at hlt
  exact lt_irrefl _ hlt

/-! ### (i) Singular values: the eigenvalues of `J Jᴴ` -/

section Matrix

variable {n : ℕ}

set_option backward.isDefEq.respectTransparency false in
/-- `tr (J Jᴴ) = ∑ᵢⱼ Jᵢⱼ²` (squared Frobenius norm) for a real matrix. -/
theorem trace_eq_frobSq (J : Matrix (Fin n) (Fin n) ℝ) :
    (J * Jᴴ).trace = ∑ i, ∑ j, J i j ^ 2 := by
  simp only [Matrix.trace, Matrix.diag_apply, Matrix.mul_apply, Matrix.conjTranspose_apply,
    star_trivial, sq]
  -- both sides are now `∑ᵢ ∑ⱼ Jᵢⱼ * Jᵢⱼ`, the two `*` reached by different instance paths; a no-op
  -- if `simp only` already closed the goal
  all_goals rfl

set_option backward.isDefEq.respectTransparency false in
/-- `det (J Jᴴ) = |det J|²` for a real matrix. -/
theorem det_mul_conjTranspose_self (J : Matrix (Fin n) (Fin n) ℝ) :
    (J * Jᴴ).det = |J.det| ^ 2 := by
  rw [Matrix.det_mul, Matrix.det_conjTranspose, star_trivial, sq_abs]
  exact (sq _).symm

/-- On `ℝ` the coercion `RCLike.ofReal : ℝ → ℝ` is the identity (`RCLike.ofReal_real_eq_id`). -/
theorem ofReal_real_apply (x : ℝ) : (RCLike.ofReal x : ℝ) = x :=
  congrFun RCLike.ofReal_real_eq_id x

set_option backward.isDefEq.respectTransparency false in
/-- The eigenvalues of `J Jᴴ` (squared singular values of `J`) multiply to `|det J|²`. -/
theorem prod_eigenvalues (J : Matrix (Fin n) (Fin n) ℝ) :
    ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i = |J.det| ^ 2 := by
  have h := (Matrix.isHermitian_mul_conjTranspose_self J).det_eq_prod_eigenvalues
  -- `h : det (J Jᴴ) = ∏ i, RCLike.ofReal (λ i)`, with the instances of the generic `RCLike` lemma.
  -- The removal of `RCLike.ofReal` (the identity on `ℝ`, `RCLike.ofReal_real_eq_id`) is stated
  -- here as its own equation with this file's instances; the chain below then only compares
  -- instance arguments, by `Eq.trans` (default transparency), not by `rw`/`simp`.
  have hid :
      ∏ i, (RCLike.ofReal ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i) : ℝ) =
      ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i :=
    Finset.prod_congr rfl fun i _ =>
      ofReal_real_apply ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i)
  exact (h.trans hid).symm.trans (det_mul_conjTranspose_self J)

set_option backward.isDefEq.respectTransparency false in
/-- The eigenvalues of `J Jᴴ` sum to the squared Frobenius norm of `J`. -/
theorem sum_eigenvalues (J : Matrix (Fin n) (Fin n) ℝ) :
    ∑ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i = ∑ i, ∑ j, J i j ^ 2 := by
  have h := (Matrix.isHermitian_mul_conjTranspose_self J).trace_eq_sum_eigenvalues
  -- as in `prod_eigenvalues`: `RCLike.ofReal` is removed in its own equation, then `Eq.trans`
  have hid :
      ∑ i, (RCLike.ofReal ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i) : ℝ) =
      ∑ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i :=
    Finset.sum_congr rfl fun i _ =>
      ofReal_real_apply ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i)
  exact (h.trans hid).symm.trans (trace_eq_frobSq J)

/-- **AM–GM on singular values, `|det J| = 1`.** Paper (appendix): `‖J‖_F² ≥ n` when
`|det J| = 1`. Proved for every real `n × n` matrix. -/
theorem card_le_frobSq_of_abs_det_eq_one (J : Matrix (Fin n) (Fin n) ℝ) (hdet : |J.det| = 1) :
    (n : ℝ) ≤ ∑ i, ∑ j, J i j ^ 2 := by
  have hprod : ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i = 1 := by
    rw [prod_eigenvalues, hdet, one_pow]
  have h := card_le_sum_of_prod_eq_one Finset.univ
    (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues
    (fun i _ => Matrix.eigenvalues_self_mul_conjTranspose_nonneg J i) hprod
  rw [Finset.card_univ, Fintype.card_fin, sum_eigenvalues] at h
  exact h

-- The spectral step mixes instances reached through `RCLike ℝ` (from the generic spectral
-- theorem) with the direct ones on `ℝ` (e.g. `Matrix.mul_one`'s and `mul_star_self_of_mem`'s
-- `Monoid`). They agree by unfolding instances; the pre-v4.29 unifier setting below also lets
-- implicit arguments unfold further.
set_option backward.isDefEq.respectTransparency false in
/-- **Equality case.** For a real matrix with `|det J| = 1`: `‖J‖_F² = n` iff `J Jᵀ = 1`
(`J` orthogonal). The forward direction: all eigenvalues of `J Jᴴ` are `1`, and by the
spectral theorem `J Jᴴ = U · 1 · U⋆ = 1`. -/
theorem frobSq_eq_card_iff (J : Matrix (Fin n) (Fin n) ℝ) (hdet : |J.det| = 1) :
    ∑ i, ∑ j, J i j ^ 2 = n ↔ J * Jᵀ = 1 := by
  rw [← Matrix.conjTranspose_eq_transpose_of_trivial]
  constructor
  · intro hsum
    have hprod : ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i = 1 := by
      rw [prod_eigenvalues, hdet, one_pow]
    have hsum' : ∑ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i =
        ((Finset.univ : Finset (Fin n)).card : ℝ) := by
      rw [sum_eigenvalues, hsum, Finset.card_univ, Fintype.card_fin]
    have hall := eq_one_of_sum_eq_card Finset.univ
      (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues
      (fun i _ => Matrix.eigenvalues_self_mul_conjTranspose_nonneg J i) hprod hsum'
    have hd : (RCLike.ofReal ∘ (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues :
        Fin n → ℝ) = fun _ => 1 := by
      funext i
      show (RCLike.ofReal ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i) : ℝ) = 1
      rw [ofReal_real_apply]
      exact hall i (Finset.mem_univ i)
    -- spectral theorem at v4.31.0: `A = conjStarAlgAut 𝕜 _ U (diagonal (RCLike.ofReal ∘ λ))`
    have hs := (Matrix.isHermitian_mul_conjTranspose_self J).spectral_theorem
    -- `conjStarAlgAut_apply` (`conjStarAlgAut S R u x = u * x * (star u : R)`, proved by `rfl`),
    -- elaborated on its own with `S` and `R` named and `u`, `x` given: its instance arguments are
    -- synthesized here (this file's instances), not assigned from `hs` and then re-synthesized
    have happ := Unitary.conjStarAlgAut_apply (S := ℝ) (R := Matrix (Fin n) (Fin n) ℝ)
      (Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary
      (Matrix.diagonal
        (RCLike.ofReal ∘ (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues : Fin n → ℝ))
    -- `hs.trans happ` compares `hs`'s right side with `happ`'s left side (two closed terms), and
    -- the `have` compares `happ`'s right side with the statement below (`↑(star U)` is
    -- `star ↑U` by `rfl`, `Unitary.coe_star`), both at default transparency. Nothing is rewritten
    -- inside a term built by the generic spectral lemma.
    have hs' : J * Jᴴ =
        ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary :
          Matrix (Fin n) (Fin n) ℝ) *
          Matrix.diagonal
            (RCLike.ofReal ∘ (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues :
              Fin n → ℝ) *
          star ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary :
            Matrix (Fin n) (Fin n) ℝ) :=
      hs.trans happ
    -- `mul_star_self_of_mem (hU : U ∈ unitary R) : U * star U = 1`, stated with this file's
    -- instances (checked at default transparency)
    have hU : ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary :
          Matrix (Fin n) (Fin n) ℝ) *
          star ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary :
            Matrix (Fin n) (Fin n) ℝ) = 1 :=
      Unitary.mul_star_self_of_mem
        (Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary.prop
    have hdiag : Matrix.diagonal
        (RCLike.ofReal ∘ (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues :
          Fin n → ℝ) = 1 :=
      (congrArg Matrix.diagonal hd).trans Matrix.diagonal_one
    -- `Matrix.mul_one` stated with this file's instances, so that the rewrite below is syntactic
    have hmul1 : ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary :
          Matrix (Fin n) (Fin n) ℝ) * (1 : Matrix (Fin n) (Fin n) ℝ) =
        ((Matrix.isHermitian_mul_conjTranspose_self J).eigenvectorUnitary :
          Matrix (Fin n) (Fin n) ℝ) :=
      Matrix.mul_one _
    rw [hdiag, hmul1] at hs'
    exact hs'.trans hU
  · intro h1
    have htr : (J * Jᴴ).trace = ((Fintype.card (Fin n) : ℕ) : ℝ) := by
      rw [h1]
      exact Matrix.trace_one
    rw [Fintype.card_fin] at htr
    exact (trace_eq_frobSq J).symm.trans htr

set_option backward.isDefEq.respectTransparency false in
/-- **AM–GM on singular values, general determinant.** `n |det J|^{2/n} ≤ ‖J‖_F²` for every real
`n × n` matrix, `n ≥ 1` (weighted AM–GM on the eigenvalues of `J Jᴴ`). -/
theorem card_mul_abs_det_rpow_le_frobSq (hn : 0 < n) (J : Matrix (Fin n) (Fin n) ℝ) :
    (n : ℝ) * |J.det| ^ ((2 : ℝ) / n) ≤ ∑ i, ∑ j, J i j ^ 2 := by
  have hnR : (0 : ℝ) < n := Nat.cast_pos.mpr hn
  have hninv : (n : ℝ) * (n : ℝ)⁻¹ = 1 := mul_inv_cancel₀ hnR.ne'
  have hnonneg : ∀ i ∈ (Finset.univ : Finset (Fin n)),
      0 ≤ (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i :=
    fun i _ => Matrix.eigenvalues_self_mul_conjTranspose_nonneg J i
  have hw' : ∑ _i : Fin n, (1 / (n : ℝ)) = 1 := by
    rw [Finset.sum_const, Finset.card_univ, Fintype.card_fin, nsmul_eq_mul]
    -- the cast from `nsmul_eq_mul` is matched to ours by `exact` (default transparency)
    exact mul_one_div_cancel hnR.ne'
  have hamgm : ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i ^ (1 / (n : ℝ)) ≤
      ∑ i, 1 / (n : ℝ) * (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i :=
    Real.geom_mean_le_arith_mean_weighted Finset.univ (fun _ => 1 / (n : ℝ))
      (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues
      (fun _ _ => le_of_lt (one_div_pos.mpr hnR)) hw' hnonneg
  -- the two sides of `hamgm`, each rewritten in its own equation (no rewriting inside `hamgm`)
  have hlhs : ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i ^ (1 / (n : ℝ)) =
      |J.det| ^ ((2 : ℝ) / n) :=
    -- each step a term, checked against its stated equation at default transparency
    calc ∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i ^ (1 / (n : ℝ))
        = (∏ i, (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i) ^ (1 / (n : ℝ)) :=
          Real.finsetProd_rpow Finset.univ (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues
            hnonneg (1 / (n : ℝ))
      _ = (|J.det| ^ 2) ^ (1 / (n : ℝ)) :=
          congrArg (fun t : ℝ => t ^ (1 / (n : ℝ))) (prod_eigenvalues J)
      _ = (|J.det| ^ (2 : ℝ)) ^ (1 / (n : ℝ)) :=
          congrArg (fun t : ℝ => t ^ (1 / (n : ℝ))) (Real.rpow_two |J.det|).symm
      _ = |J.det| ^ ((2 : ℝ) * (1 / (n : ℝ))) :=
          (Real.rpow_mul (abs_nonneg J.det) 2 (1 / (n : ℝ))).symm
      _ = |J.det| ^ ((2 : ℝ) / n) :=
          congrArg (fun t : ℝ => |J.det| ^ t) (mul_one_div (2 : ℝ) (n : ℝ))
  have hrhs : ∑ i, 1 / (n : ℝ) * (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues i =
      1 / (n : ℝ) * ∑ i, ∑ j, J i j ^ 2 := by
    rw [← sum_eigenvalues J]
    exact (Finset.mul_sum Finset.univ
      (Matrix.isHermitian_mul_conjTranspose_self J).eigenvalues (1 / (n : ℝ))).symm
  have hamgm' : |J.det| ^ ((2 : ℝ) / n) ≤ 1 / (n : ℝ) * ∑ i, ∑ j, J i j ^ 2 :=
    (hlhs.symm.trans_le hamgm).trans_eq hrhs
  calc (n : ℝ) * |J.det| ^ ((2 : ℝ) / n)
      ≤ n * (1 / n * ∑ i, ∑ j, J i j ^ 2) := mul_le_mul_of_nonneg_left hamgm' hnR.le
    _ = ∑ i, ∑ j, J i j ^ 2 := by linear_combination (∑ i, ∑ j, J i j ^ 2) * hninv

end Matrix

/-! ### (ii) Jensen's step and (iii) the integrated bound -/

section Integral

variable {Ω : Type*} [MeasurableSpace Ω] {μ : Measure Ω} [IsProbabilityMeasure μ]

/-- **Jensen for `exp`.** For a probability measure and an integrable `g` with `∫ g = 0` and
`exp ∘ g` integrable: `1 ≤ ∫ exp g`. Pointwise `g + 1 ≤ exp g`, then integrate. -/
theorem one_le_integral_exp {g : Ω → ℝ} (hg : Integrable g μ)
    (hexp : Integrable (fun ω => Real.exp (g ω)) μ) (hmean : ∫ ω, g ω ∂μ = 0) :
    1 ≤ ∫ ω, Real.exp (g ω) ∂μ := by
  have hone : ∫ _ : Ω, (1 : ℝ) ∂μ = 1 := by
    -- `integral_const` (`… = μ.real univ • c`) stated with `*`: `•` on `ℝ` is `*` at default
    -- transparency, so no rewrite has to match the `NormedSpace` scalar action
    have h : ∫ _ : Ω, (1 : ℝ) ∂μ = μ.real Set.univ * 1 := integral_const (1 : ℝ)
    rw [probReal_univ, mul_one] at h
    exact h
  have hsum : ∫ ω, (g ω + 1) ∂μ = 1 := by
    rw [integral_add hg (integrable_const (1 : ℝ)), hmean, hone, zero_add]
  have hle : ∫ ω, (g ω + 1) ∂μ ≤ ∫ ω, Real.exp (g ω) ∂μ :=
    integral_mono (hg.fun_add (integrable_const (1 : ℝ))) hexp
      (fun ω => Real.add_one_le_exp (g ω))
  rw [hsum] at hle
  exact hle

/-- **Jensen step of the appendix.** If `d > 0` and `E log d = 0` then `E d^r ≥ 1`
(for `d = |det J_h|` and `r = 2/n` this is `E |det J_h|^{2/n} ≥ 1`). -/
theorem one_le_integral_rpow_of_integral_log_eq_zero {d : Ω → ℝ} (r : ℝ) (hd : ∀ ω, 0 < d ω)
    (hlog : Integrable (fun ω => Real.log (d ω)) μ) (hlog0 : ∫ ω, Real.log (d ω) ∂μ = 0)
    (hpow : Integrable (fun ω => d ω ^ r) μ) : 1 ≤ ∫ ω, d ω ^ r ∂μ := by
  have heq : (fun ω => d ω ^ r) = fun ω => Real.exp (Real.log (d ω) * r) :=
    funext fun ω => Real.rpow_def_of_pos (hd ω) r
  have hg : Integrable (fun ω => Real.log (d ω) * r) μ := hlog.mul_const r
  -- `integral_mul_const` is stated for `[RCLike L]`; its instance of the equation is stated here,
  -- with this file's instances, so that `hlog0` then matches syntactically
  have hmul : ∫ ω, Real.log (d ω) * r ∂μ = (∫ ω, Real.log (d ω) ∂μ) * r :=
    integral_mul_const r (fun ω => Real.log (d ω))
  have hmean : ∫ ω, Real.log (d ω) * r ∂μ = 0 := by
    rw [hmul, hlog0, zero_mul]
    all_goals rfl
  have hexp : Integrable (fun ω => Real.exp (Real.log (d ω) * r)) μ := by
    rw [← heq]
    exact hpow
  rw [heq]
  exact one_le_integral_exp hg hexp hmean

/-- **Integrated bound.** A pointwise bound `n d^{2/n} ≤ F` and `E log d = 0` give `n ≤ E F`. -/
theorem card_le_integral_of_pointwise {n : ℕ} {d F : Ω → ℝ} (hd : ∀ ω, 0 < d ω)
    (hpoint : ∀ ω, (n : ℝ) * d ω ^ ((2 : ℝ) / n) ≤ F ω)
    (hlog : Integrable (fun ω => Real.log (d ω)) μ) (hlog0 : ∫ ω, Real.log (d ω) ∂μ = 0)
    (hpow : Integrable (fun ω => d ω ^ ((2 : ℝ) / n)) μ) (hF : Integrable F μ) :
    (n : ℝ) ≤ ∫ ω, F ω ∂μ := by
  have h1 := one_le_integral_rpow_of_integral_log_eq_zero ((2 : ℝ) / n) hd hlog hlog0 hpow
  have h2 : ∫ ω, (n : ℝ) * d ω ^ ((2 : ℝ) / n) ∂μ ≤ ∫ ω, F ω ∂μ :=
    integral_mono (hpow.const_mul (n : ℝ)) hF hpoint
  -- `integral_const_mul` (stated for `[RCLike L]`) as an equation with this file's instances; the
  -- chain below then compares only syntactically equal terms (no `rw` into `h2`, no `linarith`)
  have hcm : ∫ ω, (n : ℝ) * d ω ^ ((2 : ℝ) / n) ∂μ = (n : ℝ) * ∫ ω, d ω ^ ((2 : ℝ) / n) ∂μ :=
    integral_const_mul (n : ℝ) (fun ω => d ω ^ ((2 : ℝ) / n))
  have hn : (0 : ℝ) ≤ n := Nat.cast_nonneg n
  have h3 : (n : ℝ) * 1 ≤ n * ∫ ω, d ω ^ ((2 : ℝ) / n) ∂μ := mul_le_mul_of_nonneg_left h1 hn
  calc (n : ℝ) = (n : ℝ) * 1 := (mul_one (n : ℝ)).symm
    _ ≤ (n : ℝ) * ∫ ω, d ω ^ ((2 : ℝ) / n) ∂μ := h3
    _ = ∫ ω, (n : ℝ) * d ω ^ ((2 : ℝ) / n) ∂μ := hcm.symm
    _ ≤ ∫ ω, F ω ∂μ := h2

/-- **Appendix, Dirichlet-energy lower bound.** Paper: for an `N(0, I)`-preserving diffeomorphism,
`E ‖J_h‖_F² ≥ n`. Proved: for any measurable family of invertible real matrices `J ω` on a
probability space with `E log |det J| = 0` (the consequence of measure preservation, assumed
here) and the stated integrability, `n ≤ E ∑ᵢⱼ (J ω)ᵢⱼ²`. -/
theorem card_le_integral_frobSq {n : ℕ} (hn : 0 < n) (J : Ω → Matrix (Fin n) (Fin n) ℝ)
    (hdet : ∀ ω, (J ω).det ≠ 0)
    (hlog : Integrable (fun ω => Real.log |(J ω).det|) μ)
    (hlog0 : ∫ ω, Real.log |(J ω).det| ∂μ = 0)
    (hpow : Integrable (fun ω => |(J ω).det| ^ ((2 : ℝ) / n)) μ)
    (hF : Integrable (fun ω => ∑ i, ∑ j, J ω i j ^ 2) μ) :
    (n : ℝ) ≤ ∫ ω, ∑ i, ∑ j, J ω i j ^ 2 ∂μ :=
  card_le_integral_of_pointwise (d := fun ω => |(J ω).det|)
    (F := fun ω => ∑ i, ∑ j, J ω i j ^ 2) (fun ω => abs_pos.mpr (hdet ω))
    (fun ω => card_mul_abs_det_rpow_le_frobSq hn (J ω)) hlog hlog0 hpow hF

/-! ### Non-vacuity: the identity Jacobian `J ≡ 1` meets every hypothesis, with equality -/

set_option backward.isDefEq.respectTransparency false in
/-- `∑ᵢⱼ 1ᵢⱼ² = n`: the identity is orthogonal, so `frobSq_eq_card_iff` gives the value. -/
theorem frobSq_one (n : ℕ) : ∑ i, ∑ j, (1 : Matrix (Fin n) (Fin n) ℝ) i j ^ 2 = n := by
  have hdet : |(1 : Matrix (Fin n) (Fin n) ℝ).det| = 1 := by
    rw [Matrix.det_one, abs_one]
  refine (frobSq_eq_card_iff (1 : Matrix (Fin n) (Fin n) ℝ) hdet).mpr ?_
  rw [Matrix.transpose_one, Matrix.mul_one]

/-- **Non-vacuity of `card_le_integral_frobSq`.** On any probability space, the constant family
`J ω = 1` (the Jacobian of the identity map) meets every hypothesis of `card_le_integral_frobSq`
— invertibility, integrability of `log |det J|`, `E log |det J| = 0`, integrability of
`|det J|^{2/n}` and of `‖J‖_F²` — and attains the bound: `E ‖J‖_F² = n`. -/
theorem card_le_integral_frobSq_witness (n : ℕ) :
    (∀ _ω : Ω, (1 : Matrix (Fin n) (Fin n) ℝ).det ≠ 0) ∧
      Integrable (fun _ : Ω => Real.log |(1 : Matrix (Fin n) (Fin n) ℝ).det|) μ ∧
      ∫ _ : Ω, Real.log |(1 : Matrix (Fin n) (Fin n) ℝ).det| ∂μ = 0 ∧
      Integrable (fun _ : Ω => |(1 : Matrix (Fin n) (Fin n) ℝ).det| ^ ((2 : ℝ) / n)) μ ∧
      Integrable (fun _ : Ω => ∑ i, ∑ j, (1 : Matrix (Fin n) (Fin n) ℝ) i j ^ 2) μ ∧
      ∫ _ : Ω, ∑ i, ∑ j, (1 : Matrix (Fin n) (Fin n) ℝ) i j ^ 2 ∂μ = n := by
  refine ⟨fun _ => ?_, integrable_const _, ?_, integrable_const _, integrable_const _, ?_⟩
  · rw [Matrix.det_one]
    exact one_ne_zero
  · rw [Matrix.det_one, abs_one, Real.log_one]
    exact integral_zero Ω ℝ
  · -- as in `one_le_integral_exp`: `integral_const` stated with `*`
    have h : ∫ _ : Ω, (n : ℝ) ∂μ = μ.real Set.univ * (n : ℝ) := integral_const (n : ℝ)
    rw [probReal_univ, one_mul] at h
    rw [frobSq_one n]
    exact h

/-- The witness plugged into `card_le_integral_frobSq` (for `n ≥ 1`). -/
theorem card_le_integral_frobSq_applies {n : ℕ} (hn : 0 < n) :
    (n : ℝ) ≤ ∫ _ : Ω, ∑ i, ∑ j, (1 : Matrix (Fin n) (Fin n) ℝ) i j ^ 2 ∂μ := by
  obtain ⟨h1, h2, h3, h4, h5, -⟩ := card_le_integral_frobSq_witness (μ := μ) n
  exact card_le_integral_frobSq hn (fun _ => (1 : Matrix (Fin n) (Fin n) ℝ)) h1 h2 h3 h4 h5

end Integral

end Lejepa.Dirichlet
