import Lejepa.Hermite
import Mathlib

-- All of Mathlib is imported on purpose: no Lean toolchain was available where these files were
-- written, and a missing transitive import would break the build. Narrow the imports once
-- `lake build` has run.

/-!
# Theorem 4.3 (approximate identifiability) in the Hermite coefficient model

The paper (Klindt, LeCun, Balestriero 2026, Theorem/Proposition 4.3) claims: for an encoder `h` with
alignment gap `δ = L_align(h) - 2(1-ρ)n` and whitening error `ε = ‖Cov(h(z)) - Iₙ‖_F`, some
orthogonal `Q` satisfies `E‖h(z) - Qz‖² ≤ D + (ε + D)²` with `D = δ / (2ρ(1-ρ))`.

That form is not true in general: a linear encoder `h(z) = z/2` in one dimension with `ρ = 9/10`
violates it (`paper_form_counterexample`, where `δ < 0`); so does the near-optimal encoder
`h = (99/100) He₁ + (2/25) He₂` with `δ = 221/250000 > 0` and `ε = 71/10000`
(`paper_form_counterexample_pos_delta`, valid whether or not `δ` is clamped at `0`); a nonzero
mean violates it too. What is proved here is the corrected statement
`approximate_identifiability`: with the *trace* gap `δ_tr = L_align - 2(1-ρ) tr Cov` (always
`≥ 0`) and `D_tr = δ_tr / (2ρ(1-ρ))`, for every `0 < ρ < 1` some orthogonal `Q` has
`E‖h(z) - Qz‖² ≤ ‖μ‖² + D_tr + (ε + D_tr)²`,
where `μ = E h(z)`. When every component has mean `0` and variance `1` (the paper's setting),
`tr Cov = n`, so `δ_tr` is the paper's `δ` and the paper's form follows
(`approximate_identifiability_paper_form`).

## The model

We work in the coefficient model of `Lejepa.Hermite`: component `i` of the encoder is given by its
finitely many Hermite coefficients `c i α` (`h_i = ∑_α c i α He_α`), and the population moments are
*defined* by the orthogonality/Mehler formulas (`mean`, `variance`, `corr`, `cov`, `alignLoss`,
`linearPart` from `Lejepa.Hermite`). In the same way the recovery error against a matrix `Q` is
defined in coefficient space (`recoveryError`): `z ↦ (Q z)_i` has the coefficient vector
`linCoeff Q i` (coefficient `Q i j` at `α = e_j`, zero elsewhere), and
`recoveryError c Q = ∑_i ∑_α (c i α - linCoeff Q i α)² α!`, which is `E‖h(z) - Q z‖²` by the
orthogonality of the `He_α` under `N(0, Iₙ)` (`E[He_α He_β] = [α = β] α!`). That orthogonality is
not proved in Lean here; `pycheck/tests/test_fidelity_approx.py` checks the identification
numerically by Gauss–Hermite quadrature.

## Layer 1: real and matrix lemmas (no coefficient model)

* `mul_one_sub_le_sub_pow`: `ρ(1-ρ) ≤ ρ - ρ^d` for `0 < ρ < 1`, `d ≥ 2`.
* `sub_one_sq_le_sq_sub_one_sq`: `(s-1)² ≤ (s²-1)²` for `s ≥ 0`.
* `sum_sum_sq_weighted_le`: a Gram/Cauchy–Schwarz bound
  `∑_i ∑_k ⟨x_i, x_k⟩_w² ≤ (∑_i ‖x_i‖_w²)²` for a nonnegative weight `w` on a finite set.
* `frob M = √(∑_i ∑_j M_ij²)` with `frob_sub_le` (triangle inequality),
  invariance under orthogonal factors, and `frob_transpose_mul_sub_one`
  (`‖AᵀA - 1‖_F = ‖AAᵀ - 1‖_F`, by trace cyclicity).
* `exists_orthogonal_frob_sub_le` (Procrustes): for every real square `A` some `Q ∈ O(n)` has
  `‖A - Q‖_F ≤ ‖AᵀA - 1‖_F`. Proof: spectral theorem for the symmetric `AᵀA`
  (`Matrix.IsHermitian.eigenvectorBasis`), so `B = A V` has pairwise orthogonal columns `b_k`;
  Mathlib's Gram–Schmidt orthonormal basis (`InnerProductSpace.gramSchmidtOrthonormalBasis`)
  gives an orthonormal `w_k` with `⟨b_k, w_k⟩ = ‖b_k‖`; then `Q = W Vᵀ` and
  `‖b_k - w_k‖² = (‖b_k‖ - 1)² ≤ (‖b_k‖² - 1)²`.

## Layer 2: the coefficient model

* `two_mul_nonlinEnergy_le_traceGap`: `2ρ(1-ρ) N ≤ δ_tr` (spectral gap), hence `traceGap_nonneg`
  and `nonlinEnergy_le_normalizedGap`.
* `recoveryError_eq` (Pythagoras): `recoveryError c Q = ‖μ‖² + ‖A - Q‖_F² + N`.
* `cov_eq`: `Cov = A Aᵀ + C_N` and `frob_nlCov_le`: `‖C_N‖_F ≤ N`, hence
  `frob_linear_gram_le`: `‖A Aᵀ - 1‖_F ≤ ε + N`.
* `approximate_identifiability` (headline), `approximate_identifiability_paper_form`,
  `paper_form_counterexample` (`δ < 0`), `paper_form_counterexample_pos_delta` (`δ > 0`).
* Non-vacuity: `approximate_identifiability_witness`,
  `approximate_identifiability_paper_form_witness` (an orthogonal linear encoder `h(z) = U z` meets
  every hypothesis and attains the bound with equality), `exists_orthogonal_frob_sub_le_witness`.

No Lean toolchain was run on this file in this workplace: names were checked against the pinned
Mathlib source, and the statements are mirrored numerically by the Python fidelity tests.
-/

namespace Lejepa.Approx

open Lejepa.Hermite

noncomputable section

variable {n : ℕ}

/-! ## Layer 1: real-number lemmas -/

/-- (L1a) Spectral-gap arithmetic: `ρ(1-ρ) ≤ ρ - ρ^d` for `0 < ρ < 1` and `d ≥ 2`. -/
theorem mul_one_sub_le_sub_pow {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) {d : ℕ} (hd : 2 ≤ d) :
    ρ * (1 - ρ) ≤ ρ - ρ ^ d := by
  have h : ρ ^ d ≤ ρ ^ 2 := pow_le_pow_of_le_one h0.le h1.le hd
  nlinarith [h]

/-- (L1b) For `s ≥ 0`: `(s - 1)² ≤ (s² - 1)²` (because `s + 1 ≥ 1`). -/
theorem sub_one_sq_le_sq_sub_one_sq {s : ℝ} (hs : 0 ≤ s) : (s - 1) ^ 2 ≤ (s ^ 2 - 1) ^ 2 := by
  nlinarith [mul_nonneg (sq_nonneg (s - 1)) (add_nonneg (sq_nonneg s) (mul_nonneg zero_le_two hs))]

set_option backward.isDefEq.respectTransparency false in
/-- (L1c) Gram / Cauchy–Schwarz: for vectors `x i` on a finite set `s` with a nonnegative weight
`w`, the squared weighted inner products satisfy
`∑_i ∑_k (∑_a x_i(a) x_k(a) w(a))² ≤ (∑_i ∑_a x_i(a)² w(a))²`. -/
theorem sum_sum_sq_weighted_le {ι : Type*} (s : Finset ι) (w : ι → ℝ)
    (hw : ∀ a ∈ s, 0 ≤ w a) (x : Fin n → ι → ℝ) :
    ∑ i, ∑ k, (∑ a ∈ s, x i a * x k a * w a) ^ 2 ≤ (∑ i, ∑ a ∈ s, x i a ^ 2 * w a) ^ 2 := by
  have hcs : ∀ i k, (∑ a ∈ s, x i a * x k a * w a) ^ 2 ≤
      (∑ a ∈ s, x i a ^ 2 * w a) * (∑ a ∈ s, x k a ^ 2 * w a) := fun i k =>
    Finset.sum_sq_le_sum_mul_sum_of_sq_le_mul (r := fun a => x i a * x k a * w a)
      (f := fun a => x i a ^ 2 * w a) (g := fun a => x k a ^ 2 * w a) s
      (fun a ha => mul_nonneg (sq_nonneg _) (hw a ha))
      (fun a ha => mul_nonneg (sq_nonneg _) (hw a ha))
      (fun a _ => le_of_eq
        (by ring : (x i a * x k a * w a) ^ 2 = x i a ^ 2 * w a * (x k a ^ 2 * w a)))
  calc ∑ i, ∑ k, (∑ a ∈ s, x i a * x k a * w a) ^ 2
      ≤ ∑ i, ∑ k, (∑ a ∈ s, x i a ^ 2 * w a) * (∑ a ∈ s, x k a ^ 2 * w a) :=
        Finset.sum_le_sum fun i _ => Finset.sum_le_sum fun k _ => hcs i k
    _ = (∑ i, ∑ a ∈ s, x i a ^ 2 * w a) ^ 2 := by
        rw [sq (∑ i, ∑ a ∈ s, x i a ^ 2 * w a), Finset.sum_mul_sum]

/-! ## Layer 1: the Frobenius norm -/

/-- The Frobenius norm `‖M‖_F = √(∑_i ∑_j M_ij²)` (explicit, no scoped norm instance). -/
def frob (M : Matrix (Fin n) (Fin n) ℝ) : ℝ :=
  Real.sqrt (∑ i, ∑ j, M i j ^ 2)

theorem sum_sum_sq_nonneg (M : Matrix (Fin n) (Fin n) ℝ) : 0 ≤ ∑ i, ∑ j, M i j ^ 2 :=
  Finset.sum_nonneg fun _ _ => Finset.sum_nonneg fun _ _ => sq_nonneg _

theorem frob_nonneg (M : Matrix (Fin n) (Fin n) ℝ) : 0 ≤ frob M :=
  Real.sqrt_nonneg _

theorem frob_sq (M : Matrix (Fin n) (Fin n) ℝ) : frob M ^ 2 = ∑ i, ∑ j, M i j ^ 2 :=
  Real.sq_sqrt (sum_sum_sq_nonneg M)

theorem frob_le_of_sq_le {M : Matrix (Fin n) (Fin n) ℝ} {r : ℝ} (hr : 0 ≤ r)
    (h : ∑ i, ∑ j, M i j ^ 2 ≤ r ^ 2) : frob M ≤ r :=
  (Real.sqrt_le_left hr).mpr h

set_option backward.isDefEq.respectTransparency false in
/-- `∑_i ∑_j M_ij² = tr (M Mᵀ)`. -/
theorem sum_sum_sq_eq_trace (M : Matrix (Fin n) (Fin n) ℝ) :
    ∑ i, ∑ j, M i j ^ 2 = Matrix.trace (M * Mᵀ) := by
  rw [Matrix.trace]
  refine Finset.sum_congr rfl fun i _ => ?_
  rw [Matrix.diag_apply, Matrix.mul_apply]
  refine Finset.sum_congr rfl fun j _ => ?_
  rw [Matrix.transpose_apply, sq]

theorem frob_transpose (M : Matrix (Fin n) (Fin n) ℝ) : frob Mᵀ = frob M := by
  unfold frob
  simp only [Matrix.transpose_apply]
  rw [Finset.sum_comm]

set_option backward.isDefEq.respectTransparency false in
/-- Right multiplication by a matrix `U` with `U Uᵀ = 1` preserves the Frobenius norm. -/
theorem frob_mul_of_mul_transpose_eq_one (M U : Matrix (Fin n) (Fin n) ℝ) (hU : U * Uᵀ = 1) :
    frob (M * U) = frob M := by
  unfold frob
  rw [sum_sum_sq_eq_trace (M * U), sum_sum_sq_eq_trace M, Matrix.transpose_mul,
    ← Matrix.mul_assoc, Matrix.mul_assoc M U Uᵀ, hU, Matrix.mul_one]

/-- Left multiplication by a matrix `U` with `Uᵀ U = 1` preserves the Frobenius norm. -/
theorem frob_mul_left_of_transpose_mul_eq_one (U M : Matrix (Fin n) (Fin n) ℝ)
    (hU : Uᵀ * U = 1) : frob (U * M) = frob M := by
  have hU' : Uᵀ * Uᵀᵀ = 1 := by rw [Matrix.transpose_transpose]; exact hU
  rw [← frob_transpose (U * M), Matrix.transpose_mul,
    frob_mul_of_mul_transpose_eq_one Mᵀ Uᵀ hU', frob_transpose]

set_option backward.isDefEq.respectTransparency false in
/-- (L1d) Triangle inequality for the Frobenius norm (difference form). -/
theorem frob_sub_le (M N : Matrix (Fin n) (Fin n) ℝ) : frob (M - N) ≤ frob M + frob N := by
  have hCS : (∑ i, ∑ j, M i j * N i j) ^ 2 ≤
      (∑ i, ∑ j, M i j ^ 2) * (∑ i, ∑ j, N i j ^ 2) :=
    Finset.sum_sq_le_sum_mul_sum_of_sq_le_mul (r := fun i => ∑ j, M i j * N i j)
      (f := fun i => ∑ j, M i j ^ 2) (g := fun i => ∑ j, N i j ^ 2) Finset.univ
      (fun _ _ => Finset.sum_nonneg fun _ _ => sq_nonneg _)
      (fun _ _ => Finset.sum_nonneg fun _ _ => sq_nonneg _)
      (fun i _ => Finset.sum_mul_sq_le_sq_mul_sq Finset.univ (fun j => M i j) (fun j => N i j))
  have hrow : ∀ i, ∑ j, (M - N) i j ^ 2 =
      ∑ j, M i j ^ 2 - 2 * ∑ j, M i j * N i j + ∑ j, N i j ^ 2 := by
    intro i
    rw [Finset.mul_sum, ← Finset.sum_sub_distrib, ← Finset.sum_add_distrib]
    refine Finset.sum_congr rfl fun j _ => ?_
    rw [Matrix.sub_apply]
    ring
  have hexp : ∑ i, ∑ j, (M - N) i j ^ 2 =
      ∑ i, ∑ j, M i j ^ 2 - 2 * ∑ i, ∑ j, M i j * N i j + ∑ i, ∑ j, N i j ^ 2 := by
    rw [Finset.sum_congr rfl fun i _ => hrow i, Finset.mul_sum, ← Finset.sum_sub_distrib,
      ← Finset.sum_add_distrib]
  have hprod : frob M * frob N = Real.sqrt ((∑ i, ∑ j, M i j ^ 2) * (∑ i, ∑ j, N i j ^ 2)) := by
    unfold frob
    exact (Real.sqrt_mul (sum_sum_sq_nonneg M) _).symm
  have habs : |∑ i, ∑ j, M i j * N i j| ≤ frob M * frob N := by
    rw [hprod]
    exact Real.abs_le_sqrt hCS
  have hlow : -(frob M * frob N) ≤ ∑ i, ∑ j, M i j * N i j := (abs_le.mp habs).1
  apply frob_le_of_sq_le (add_nonneg (frob_nonneg M) (frob_nonneg N))
  rw [hexp, add_sq, frob_sq M, frob_sq N]
  linarith

set_option backward.isDefEq.respectTransparency false in
/-- (L1d) `‖AᵀA - 1‖_F = ‖AAᵀ - 1‖_F`: both squares equal `tr((AAᵀ)²) - 2 tr(AAᵀ) + n`. -/
theorem frob_transpose_mul_sub_one (A : Matrix (Fin n) (Fin n) ℝ) :
    frob (Aᵀ * A - 1) = frob (A * Aᵀ - 1) := by
  have hsym1 : (Aᵀ * A - 1)ᵀ = Aᵀ * A - 1 := by
    rw [Matrix.transpose_sub, Matrix.transpose_one, Matrix.transpose_mul,
      Matrix.transpose_transpose]
  have hsym2 : (A * Aᵀ - 1)ᵀ = A * Aᵀ - 1 := by
    rw [Matrix.transpose_sub, Matrix.transpose_one, Matrix.transpose_mul,
      Matrix.transpose_transpose]
  have hsq : ∀ X : Matrix (Fin n) (Fin n) ℝ, (X - 1) * (X - 1) = X * X - X - X + 1 := by
    intro X
    simp only [Matrix.sub_mul, Matrix.mul_sub, Matrix.mul_one, Matrix.one_mul]
    abel
  have t1 : Matrix.trace (Aᵀ * A) = Matrix.trace (A * Aᵀ) := Matrix.trace_mul_comm Aᵀ A
  have t2 : Matrix.trace (Aᵀ * A * (Aᵀ * A)) = Matrix.trace (A * Aᵀ * (A * Aᵀ)) := by
    rw [Matrix.mul_assoc Aᵀ A (Aᵀ * A), Matrix.trace_mul_comm Aᵀ (A * (Aᵀ * A))]
    simp only [Matrix.mul_assoc]
  unfold frob
  rw [sum_sum_sq_eq_trace (Aᵀ * A - 1), sum_sum_sq_eq_trace (A * Aᵀ - 1), hsym1, hsym2,
    hsq (Aᵀ * A), hsq (A * Aᵀ)]
  simp only [Matrix.trace_add, Matrix.trace_sub]
  rw [t1, t2]

/-! ## Layer 1: the orthogonal Procrustes bound -/

set_option backward.isDefEq.respectTransparency false in
/-- The real inner product on `EuclideanSpace ℝ (Fin n)` as a coordinate sum. -/
theorem real_inner_eq_sum (x y : EuclideanSpace ℝ (Fin n)) :
    inner ℝ x y = ∑ i, x i * y i := by
  -- `EuclideanSpace.inner_eq_star_dotProduct x y : inner x y = ofLp y ⬝ᵥ star (ofLp x)` is `rfl`
  -- (Mathlib `Analysis/InnerProductSpace/PiL2.lean`), `dotProduct v w = ∑ i, v i * w i`, and `star`
  -- on `ℝ` is definitionally the identity (`TrivialStar ℝ := ⟨fun _ => rfl⟩`,
  -- `Data/Real/Star.lean`). So `h` is accepted by the default-transparency check of `have`,
  -- whatever instance path (`RCLike.innerProductSpace` or `RCLike.toInnerProductSpaceReal`, which
  -- agree by `rfl`, `InnerProductSpace/Basic.lean`) the `inner` was elaborated with; no `rw`
  -- pattern has to match through an instance.
  have h : inner ℝ x y = ∑ i, y i * x i := EuclideanSpace.inner_eq_star_dotProduct x y
  rw [h]
  exact Finset.sum_congr rfl fun i _ => mul_comm (y i) (x i)

set_option backward.isDefEq.respectTransparency false in
/-- Completion of a pairwise orthogonal family: some orthonormal basis `w` satisfies
`⟨f k, w k⟩ = ‖f k‖` for every `k` (Gram–Schmidt keeps the nonzero `f k / ‖f k‖`). -/
theorem exists_orthonormalBasis_inner_eq_norm (f : Fin n → EuclideanSpace ℝ (Fin n))
    (hf : Pairwise fun k l => inner ℝ (f k) (f l) = 0) :
    ∃ w : OrthonormalBasis (Fin n) ℝ (EuclideanSpace ℝ (Fin n)),
      ∀ k, inner ℝ (f k) (w k) = ‖f k‖ := by
  have h : Module.finrank ℝ (EuclideanSpace ℝ (Fin n)) = Fintype.card (Fin n) :=
    finrank_euclideanSpace
  refine ⟨InnerProductSpace.gramSchmidtOrthonormalBasis h f, fun k => ?_⟩
  by_cases hk : f k = 0
  · -- `inner_zero_left (x : E) : ⟪0, x⟫ = 0` (`InnerProductSpace/Basic.lean`, `𝕜` implicit) and
    -- `norm_zero : ‖(0 : E)‖ = 0` joined by `Eq.trans`, checked by `exact` at default
    -- transparency: no `rw` pattern has to match the `Inner`/`Zero` instances of `EuclideanSpace`
    rw [hk]
    exact (inner_zero_left (𝕜 := ℝ) _).trans norm_zero.symm
  · have hn : ‖f k‖ ≠ 0 := norm_ne_zero_iff.mpr hk
    have key : ‖f k‖⁻¹ * ‖f k‖ ^ 2 = ‖f k‖ := by
      rw [sq, ← mul_assoc, inv_mul_cancel₀ hn, one_mul]
    -- Mathlib's own form (`Analysis/InnerProductSpace/Orientation.lean`, `have hb : b i =
    -- ‖v i‖⁻¹ • v i := gramSchmidtOrthonormalBasis_apply_of_orthogonal …`): the lemma's scalar
    -- `(‖f k‖⁻¹ : 𝕜)` at `𝕜 = ℝ` is `RCLike.ofReal`, which on `ℝ` is `id` by `rfl`
    -- (`RCLike.ofReal_real_eq_id`); the `have` checks this once, by definitional equality, and the
    -- rewritten goal then carries the plain real scalar, exactly as the `calc` states it.
    have hb : InnerProductSpace.gramSchmidtOrthonormalBasis h f k = ‖f k‖⁻¹ • f k :=
      InnerProductSpace.gramSchmidtOrthonormalBasis_apply_of_orthogonal h hf hk
    rw [hb]
    calc inner ℝ (f k) (‖f k‖⁻¹ • f k) = ‖f k‖⁻¹ * inner ℝ (f k) (f k) :=
          real_inner_smul_right (f k) (f k) ‖f k‖⁻¹
      _ = ‖f k‖⁻¹ * ‖f k‖ ^ 2 :=
          congrArg (fun t : ℝ => ‖f k‖⁻¹ * t) (real_inner_self_eq_norm_sq (f k))
      _ = ‖f k‖ := key

set_option backward.isDefEq.respectTransparency false in
/-- Matrix form of the completion: if the columns of `B` are pairwise orthogonal, some `W` with
`Wᵀ W = 1` has `∑_i B_ik W_ik = ‖column k of B‖` for every `k`. -/
theorem exists_orthogonal_cols_inner_eq_norm (B : Matrix (Fin n) (Fin n) ℝ)
    (hB : ∀ k l, k ≠ l → ∑ i, B i k * B i l = 0) :
    ∃ W : Matrix (Fin n) (Fin n) ℝ, Wᵀ * W = 1 ∧
      ∀ k, ∑ i, B i k * W i k = Real.sqrt (∑ i, B i k ^ 2) := by
  obtain ⟨w, hw⟩ := exists_orthonormalBasis_inner_eq_norm
    (fun k => (WithLp.toLp 2 (fun i => B i k) : EuclideanSpace ℝ (Fin n)))
    (by
      intro k l hkl
      -- `exact` unifies `inner ℝ ?x ?y` (instance fixed by `real_inner_eq_sum`) with the goal; the
      -- coordinates `(toLp 2 v) i` reduce to `v i` (`WithLp` is a structure, `ofLp (toLp v) = v`
      -- by projection of a constructor)
      exact (real_inner_eq_sum (WithLp.toLp 2 fun i => B i k) (WithLp.toLp 2 fun i => B i l)).trans
        (hB k l hkl))
  refine ⟨Matrix.of fun i k => w k i, ?_, fun k => ?_⟩
  · ext k l
    -- stated with the coordinates of `w`; both `Eq.trans` joints are checked at default
    -- transparency, so the two `InnerProductSpace ℝ ℝ` paths need not agree syntactically
    have hkl : ∑ i, w k i * w l i = if k = l then (1 : ℝ) else 0 :=
      (real_inner_eq_sum (w k) (w l)).symm.trans (orthonormal_iff_ite.mp w.orthonormal k l)
    rw [Matrix.mul_apply, Matrix.one_apply]
    -- `(of g)ᵀ k i = g i k` and `of g i l = g i l` are `rfl` (`Matrix.transpose_apply`,
    -- `Matrix.of_apply`)
    exact hkl
  · -- `EuclideanSpace.real_norm_sq_eq (x : EuclideanSpace ℝ n) : ‖x‖ ^ 2 = ∑ i, (x i) ^ 2`
    -- (`PiL2.lean`) is stated at `ℝ`, so no generic `RCLike` norm has to be matched; the
    -- coordinates `(toLp 2 v) i` reduce to `v i` in the term-mode checks below
    have hsq : ‖(WithLp.toLp 2 (fun i => B i k) : EuclideanSpace ℝ (Fin n))‖ ^ 2 =
        ∑ i, B i k ^ 2 :=
      EuclideanSpace.real_norm_sq_eq (WithLp.toLp 2 (fun i => B i k) : EuclideanSpace ℝ (Fin n))
    have hnorm : ‖(WithLp.toLp 2 (fun i => B i k) : EuclideanSpace ℝ (Fin n))‖ =
        Real.sqrt (∑ i, B i k ^ 2) := by
      rw [← hsq]
      exact (Real.sqrt_sq
        (norm_nonneg (WithLp.toLp 2 (fun i => B i k) : EuclideanSpace ℝ (Fin n)))).symm
    have h1 : ∑ i, B i k * w k i = Real.sqrt (∑ i, B i k ^ 2) :=
      (real_inner_eq_sum (WithLp.toLp 2 (fun i => B i k) : EuclideanSpace ℝ (Fin n))
        (w k)).symm.trans ((hw k).trans hnorm)
    simp only [Matrix.of_apply]
    exact h1

set_option backward.isDefEq.respectTransparency false in
/-- Columnwise Procrustes step: if `Wᵀ W = 1` and `⟨b_k, w_k⟩ = ‖b_k‖` for the columns, then
`‖B - W‖_F ≤ ‖BᵀB - 1‖_F`. -/
theorem frob_sub_le_of_cols (B W : Matrix (Fin n) (Fin n) ℝ) (hWW : Wᵀ * W = 1)
    (hWB : ∀ k, ∑ i, B i k * W i k = Real.sqrt (∑ i, B i k ^ 2)) :
    frob (B - W) ≤ frob (Bᵀ * B - 1) := by
  have hsq : ∀ k, Real.sqrt (∑ i, B i k ^ 2) ^ 2 = ∑ i, B i k ^ 2 := fun k =>
    Real.sq_sqrt (Finset.sum_nonneg fun i _ => sq_nonneg (B i k))
  have hcol : ∀ k, ∑ i, (B - W) i k ^ 2 = (Real.sqrt (∑ i, B i k ^ 2) - 1) ^ 2 := by
    intro k
    have hw1 : ∑ i, W i k ^ 2 = 1 := by
      have hkk := congrFun (congrFun hWW k) k
      rw [Matrix.mul_apply, Matrix.one_apply_eq] at hkk
      calc ∑ i, W i k ^ 2 = ∑ i, Wᵀ k i * W i k :=
            Finset.sum_congr rfl fun i _ => by rw [Matrix.transpose_apply, sq]
        _ = 1 := hkk
    have hs := hsq k
    have hexp : ∑ i, (B - W) i k ^ 2 =
        ∑ i, B i k ^ 2 - 2 * ∑ i, B i k * W i k + ∑ i, W i k ^ 2 := by
      rw [Finset.mul_sum, ← Finset.sum_sub_distrib, ← Finset.sum_add_distrib]
      refine Finset.sum_congr rfl fun i _ => ?_
      rw [Matrix.sub_apply]
      ring
    rw [hexp, hWB k, hw1]
    -- an identity, not an inequality: `S - 2√S + 1 - (√S - 1)² = S - √S²`, which is `-(hs)`
    linear_combination (-1 : ℝ) * hs
  have hdiag : ∀ k, (Real.sqrt (∑ i, B i k ^ 2) ^ 2 - 1) ^ 2 = (Bᵀ * B - 1) k k ^ 2 := by
    intro k
    rw [hsq k, Matrix.sub_apply, Matrix.one_apply_eq, Matrix.mul_apply]
    simp only [Matrix.transpose_apply, sq]
  apply frob_le_of_sq_le (frob_nonneg _)
  rw [frob_sq]
  calc ∑ i, ∑ k, (B - W) i k ^ 2 = ∑ k, ∑ i, (B - W) i k ^ 2 := Finset.sum_comm
    _ = ∑ k, (Real.sqrt (∑ i, B i k ^ 2) - 1) ^ 2 := Finset.sum_congr rfl fun k _ => hcol k
    _ ≤ ∑ k, (Real.sqrt (∑ i, B i k ^ 2) ^ 2 - 1) ^ 2 :=
        Finset.sum_le_sum fun k _ => sub_one_sq_le_sq_sub_one_sq (Real.sqrt_nonneg _)
    _ = ∑ k, (Bᵀ * B - 1) k k ^ 2 := Finset.sum_congr rfl fun k _ => hdiag k
    _ ≤ ∑ k, ∑ l, (Bᵀ * B - 1) k l ^ 2 :=
        Finset.sum_le_sum fun k _ =>
          Finset.single_le_sum (f := fun l => (Bᵀ * B - 1) k l ^ 2)
            (fun _ _ => sq_nonneg _) (Finset.mem_univ k)

set_option backward.isDefEq.respectTransparency false in
/-- (L1e) **Orthogonal Procrustes bound.** For every real square matrix `A` there is an
orthogonal `Q` with `‖A - Q‖_F ≤ ‖AᵀA - 1‖_F`. -/
theorem exists_orthogonal_frob_sub_le (A : Matrix (Fin n) (Fin n) ℝ) :
    ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ, frob (A - Q) ≤ frob (Aᵀ * A - 1) := by
  have hM : (Aᵀ * A).IsHermitian := by
    have h := Matrix.isHermitian_conjTranspose_mul_self A
    rwa [Matrix.conjTranspose_eq_transpose_of_trivial] at h
  obtain ⟨V, hV⟩ : ∃ V : Matrix (Fin n) (Fin n) ℝ, ∀ i k, V i k = hM.eigenvectorBasis k i :=
    ⟨Matrix.of fun i k => hM.eigenvectorBasis k i, fun _ _ => rfl⟩
  have hVV : Vᵀ * V = 1 := by
    ext k l
    have hkl : ∑ i, hM.eigenvectorBasis k i * hM.eigenvectorBasis l i =
        if k = l then (1 : ℝ) else 0 :=
      (real_inner_eq_sum (hM.eigenvectorBasis k) (hM.eigenvectorBasis l)).symm.trans
        (orthonormal_iff_ite.mp hM.eigenvectorBasis.orthonormal k l)
    rw [Matrix.mul_apply, Matrix.one_apply]
    -- `calc` is matched with the goal up to definitional equality (no rewrite with `hkl`)
    calc ∑ i, Vᵀ k i * V i l = ∑ i, hM.eigenvectorBasis k i * hM.eigenvectorBasis l i :=
          Finset.sum_congr rfl fun i _ => by rw [Matrix.transpose_apply, hV, hV]
      _ = if k = l then 1 else 0 := hkl
  -- `Matrix.mul_eq_one_comm_of_equiv` (`Data/Matrix/Mul.lean`) with `e = Equiv.refl`; its
  -- `[IsStablyFiniteRing ℝ]` comes from `Matrix.instIsStablyFiniteRingOfCommSemiring`
  -- (`LinearAlgebra/Matrix/SemiringInverse.lean`)
  have hVV' : V * Vᵀ = 1 := (Matrix.mul_eq_one_comm_of_equiv (R := ℝ) (Equiv.refl (Fin n))).mp hVV
  -- the eigen-equation, entrywise: `(AᵀA V)_{jl} = λ_l V_{jl}`
  have heig : ∀ j l, ∑ m, (Aᵀ * A) j m * V m l = hM.eigenvalues l * V j l := by
    intro j l
    -- `h : ((AᵀA) *ᵥ v_l) j = (λ_l • v_l) j`, definitionally `∑ m, (AᵀA)_jm v_l(m) = λ_l * v_l(j)`
    have h := congrFun (hM.mulVec_eigenvectorBasis l) j
    calc ∑ m, (Aᵀ * A) j m * V m l = ∑ m, (Aᵀ * A) j m * hM.eigenvectorBasis l m :=
          Finset.sum_congr rfl fun m _ => by rw [hV]
      _ = hM.eigenvalues l * hM.eigenvectorBasis l j := by
          -- `h` is this equation up to unfolding: `Matrix.mulVec` and `dotProduct` are plain
          -- `def`s (`Data/Matrix/Mul.lean`), `(r • v) j = r • v j` and `r • s = r * s` hold by
          -- `rfl` (`ℝ` acts on itself through `Algebra.id`); `exact` checks it at default
          -- transparency (the option is on for this declaration), with no `simp` step
          exact h
      _ = hM.eigenvalues l * V j l := by rw [hV]
  have e2 : (A * V)ᵀ * (A * V) = Vᵀ * ((Aᵀ * A) * V) := by
    rw [Matrix.transpose_mul, Matrix.mul_assoc, ← Matrix.mul_assoc Aᵀ A V]
  -- the columns of `B = A V` are pairwise orthogonal
  have hBB : ∀ k l, ∑ i, (A * V) i k * (A * V) i l =
      hM.eigenvalues l * (if k = l then 1 else 0) := by
    intro k l
    have e1 : ∑ i, (A * V) i k * (A * V) i l = ((A * V)ᵀ * (A * V)) k l := by
      rw [Matrix.mul_apply]
      simp only [Matrix.transpose_apply]
    have e3 : ∀ j, ((Aᵀ * A) * V) j l = hM.eigenvalues l * V j l := by
      intro j
      rw [Matrix.mul_apply]
      exact heig j l
    rw [e1, e2, Matrix.mul_apply]
    calc ∑ j, Vᵀ k j * ((Aᵀ * A) * V) j l = ∑ j, hM.eigenvalues l * (Vᵀ k j * V j l) :=
          Finset.sum_congr rfl fun j _ => by rw [e3 j]; ring
      _ = hM.eigenvalues l * (Vᵀ * V) k l := by rw [← Finset.mul_sum, Matrix.mul_apply]
      _ = hM.eigenvalues l * (if k = l then 1 else 0) := by rw [hVV, Matrix.one_apply]
  have hB : ∀ k l, k ≠ l → ∑ i, (A * V) i k * (A * V) i l = 0 := by
    intro k l hkl
    rw [hBB, if_neg hkl, mul_zero]
  obtain ⟨W, hWW, hWB⟩ := exists_orthogonal_cols_inner_eq_norm (A * V) hB
  refine ⟨W * Vᵀ, ?_, ?_⟩
  · -- the equation is stated with this file's instances, so the closing `1 = 1` is syntactic;
    -- `n` and `R` are explicit arguments of `Matrix.mem_orthogonalGroup_iff'`
    have hQ : (W * Vᵀ)ᵀ * (W * Vᵀ) = 1 := by
      rw [Matrix.transpose_mul, Matrix.transpose_transpose, Matrix.mul_assoc,
        ← Matrix.mul_assoc Wᵀ W Vᵀ, hWW, Matrix.one_mul, hVV']
    exact (Matrix.mem_orthogonalGroup_iff' (Fin n) ℝ).mpr hQ
  · have hA : A - W * Vᵀ = (A * V - W) * Vᵀ := by
      rw [Matrix.sub_mul, Matrix.mul_assoc, hVV', Matrix.mul_one]
    have hVt : Vᵀ * Vᵀᵀ = 1 := by rw [Matrix.transpose_transpose]; exact hVV
    have hVt' : Vᵀᵀ * Vᵀ = 1 := by rw [Matrix.transpose_transpose]; exact hVV'
    have hconj : (A * V)ᵀ * (A * V) - 1 = Vᵀ * ((Aᵀ * A - 1) * V) := by
      rw [Matrix.sub_mul, Matrix.one_mul, Matrix.mul_sub, hVV, ← e2]
    have hR : frob ((A * V)ᵀ * (A * V) - 1) = frob (Aᵀ * A - 1) := by
      rw [hconj, frob_mul_left_of_transpose_mul_eq_one Vᵀ _ hVt',
        frob_mul_of_mul_transpose_eq_one _ V hVV']
    rw [hA, frob_mul_of_mul_transpose_eq_one (A * V - W) Vᵀ hVt, ← hR]
    exact frob_sub_le_of_cols (A * V) W hWW hWB

/-! ## Layer 2: multi-index facts -/

/-! `deg`, `mfact`, `deg_zero`, `deg_ne_zero`, `mfact_pos`, `mfact_single` and
`exists_eq_single_of_deg_eq_one` come from `Lejepa.Hermite` (`deg α = ∑ j, α j`). -/

theorem deg_eq_zero_iff (α : Fin n →₀ ℕ) : deg α = 0 ↔ α = 0 := by
  constructor
  · intro h
    by_cases hα : α = 0
    · exact hα
    · exact absurd h (deg_ne_zero hα)
  · rintro rfl
    exact deg_zero

theorem deg_single (j : Fin n) : deg (Finsupp.single j 1) = 1 := by
  have h : ∀ k, k ≠ j → (Finsupp.single j 1 : Fin n →₀ ℕ) k = 0 := fun k hk =>
    Finsupp.single_eq_of_ne hk
  unfold deg
  rw [Fintype.sum_eq_single j h, Finsupp.single_eq_same]

theorem not_two_le_deg_single (j : Fin n) : ¬ 2 ≤ deg (Finsupp.single j 1) := by
  rw [deg_single]
  omega

theorem single_one_ne_zero (j : Fin n) : (Finsupp.single j 1 : Fin n →₀ ℕ) ≠ 0 := by
  intro h
  have h1 := deg_single j
  rw [h, deg_zero] at h1
  omega

theorem mfact_nonneg (α : Fin n →₀ ℕ) : 0 ≤ mfact α :=
  (mfact_pos α).le

theorem mfact_zero : mfact (0 : Fin n →₀ ℕ) = 1 := by
  unfold mfact
  refine Finset.prod_eq_one fun j _ => ?_
  -- state the value with the literal `0 : ℕ` (as in `Lejepa.Hermite.mfact_single`), so that
  -- `Nat.factorial_zero` matches syntactically; the remaining `((1 : ℕ) : ℝ) = 1` (not closed by
  -- the reducible `rfl` of `rw`: `Nat.cast` on `ℝ` does not unfold) is `Nat.cast_one`, checked by
  -- `exact` at default transparency (the two `One ℝ` instance paths need not agree syntactically)
  have h0 : (0 : Fin n →₀ ℕ) j = 0 := Finsupp.zero_apply
  rw [h0, Nat.factorial_zero]
  exact Nat.cast_one

/-- Sum over the degree-one multi-indices of a finite set containing every `e_j` where `g` is
nonzero: it is the sum over `j` of `g (e_j)`. -/
theorem sum_filter_deg_one (T : Finset (Fin n →₀ ℕ)) (g : (Fin n →₀ ℕ) → ℝ)
    (hg : ∀ j, Finsupp.single j 1 ∉ T → g (Finsupp.single j 1) = 0) :
    ∑ α ∈ T.filter (fun α => deg α = 1), g α = ∑ j, g (Finsupp.single j 1) := by
  have hsub : T.filter (fun α => deg α = 1) ⊆
      Finset.univ.image fun j : Fin n => (Finsupp.single j 1 : Fin n →₀ ℕ) := by
    intro α hα
    obtain ⟨j, hj⟩ := exists_eq_single_of_deg_eq_one (Finset.mem_filter.mp hα).2
    exact Finset.mem_image.mpr ⟨j, Finset.mem_univ j, hj.symm⟩
  rw [Finset.sum_subset hsub,
    Finset.sum_image (s := (Finset.univ : Finset (Fin n)))
      (g := fun j : Fin n => (Finsupp.single j 1 : Fin n →₀ ℕ))
      (fun j _ k _ hjk => Finsupp.single_left_injective (one_ne_zero : (1 : ℕ) ≠ 0) hjk)]
  intro α hα hαT
  obtain ⟨j, _, rfl⟩ := Finset.mem_image.mp hα
  exact hg j fun hj => hαT (Finset.mem_filter.mpr ⟨hj, deg_single j⟩)

theorem eq_zero_of_mem_low {S : Finset (Fin n →₀ ℕ)} {α : Fin n →₀ ℕ}
    (h : α ∈ (S.filter fun α => ¬ 2 ≤ deg α).filter fun α => ¬ deg α = 1) : α = 0 := by
  rw [Finset.mem_filter, Finset.mem_filter] at h
  obtain ⟨⟨_, h2⟩, h1⟩ := h
  rw [← deg_eq_zero_iff]
  omega

/-- Splitting a finite sum over multi-indices by degree: the part of degree `0`, the part of
degree `1` (indexed by `j`), and the part of degree `≥ 2`. -/
theorem sum_split_deg (S : Finset (Fin n →₀ ℕ)) (g : (Fin n →₀ ℕ) → ℝ)
    (hg : ∀ j, Finsupp.single j 1 ∉ S → g (Finsupp.single j 1) = 0) :
    ∑ α ∈ S, g α =
      ∑ α ∈ (S.filter fun α => ¬ 2 ≤ deg α).filter (fun α => ¬ deg α = 1), g α
        + ∑ j, g (Finsupp.single j 1) + ∑ α ∈ S.filter (fun α => 2 ≤ deg α), g α := by
  have hT : ∀ j, Finsupp.single j 1 ∉ S.filter (fun α => ¬ 2 ≤ deg α) →
      g (Finsupp.single j 1) = 0 := fun j hj =>
    hg j fun hS => hj (Finset.mem_filter.mpr ⟨hS, not_two_le_deg_single j⟩)
  -- The two splits are stated with the very filters of the conclusion (so the decidability
  -- instances are elaborated exactly as there); Mathlib's lemma is used only up to defeq.
  have e1 : ∑ α ∈ S, g α = ∑ α ∈ S.filter (fun α => 2 ≤ deg α), g α +
      ∑ α ∈ S.filter (fun α => ¬ 2 ≤ deg α), g α :=
    (Finset.sum_filter_add_sum_filter_not S (fun α => 2 ≤ deg α) g).symm
  have e2 : ∑ α ∈ S.filter (fun α => ¬ 2 ≤ deg α), g α =
      ∑ α ∈ (S.filter fun α => ¬ 2 ≤ deg α).filter (fun α => deg α = 1), g α +
        ∑ α ∈ (S.filter fun α => ¬ 2 ≤ deg α).filter (fun α => ¬ deg α = 1), g α :=
    (Finset.sum_filter_add_sum_filter_not (S.filter fun α => ¬ 2 ≤ deg α)
      (fun α => deg α = 1) g).symm
  have e3 := sum_filter_deg_one (S.filter fun α => ¬ 2 ≤ deg α) g hT
  rw [e1, e2, e3]
  ring

theorem sum_low_eq (S : Finset (Fin n →₀ ℕ)) (g : (Fin n →₀ ℕ) → ℝ)
    (h0 : (0 : Fin n →₀ ℕ) ∉ S → g 0 = 0) :
    ∑ α ∈ (S.filter fun α => ¬ 2 ≤ deg α).filter (fun α => ¬ deg α = 1), g α = g 0 := by
  have hsub : (S.filter fun α => ¬ 2 ≤ deg α).filter (fun α => ¬ deg α = 1) ⊆
      ({0} : Finset (Fin n →₀ ℕ)) :=
    fun α hα => Finset.mem_singleton.mpr (eq_zero_of_mem_low hα)
  rw [Finset.sum_subset hsub, Finset.sum_singleton]
  intro α hα hαS
  rw [Finset.mem_singleton] at hα
  subst hα
  apply h0
  intro h0S
  apply hαS
  rw [Finset.mem_filter, Finset.mem_filter, deg_zero]
  exact ⟨⟨h0S, by omega⟩, by omega⟩

/-! ## Layer 2: definitions of the Theorem 4.3 quantities -/

/-- The nonlinear support of component `i`: `{α ∈ supp (c i) | |α| ≥ 2}`. -/
def nlSupport (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) : Finset (Fin n →₀ ℕ) :=
  (c i).support.filter fun α => 2 ≤ deg α

/-- The nonlinear energy `N = ∑_i ∑_{|α| ≥ 2} (c i α)² α!` (`= E‖h - μ - Az‖²`). -/
def nonlinEnergy (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : ℝ :=
  ∑ i, ∑ α ∈ nlSupport c i, (c i α) ^ 2 * mfact α

/-- The trace gap `δ_tr = L_align - 2(1-ρ) tr Cov` (what the bound actually needs). -/
def traceGap (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) : ℝ :=
  alignLoss c ρ - 2 * (1 - ρ) * Matrix.trace (cov c)

/-- The paper's alignment gap `δ = L_align - 2(1-ρ) n`. -/
def paperGap (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) : ℝ :=
  alignLoss c ρ - 2 * (1 - ρ) * (n : ℝ)

/-- The whitening error `ε = ‖Cov - I‖_F`. -/
def whiteningError (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : ℝ :=
  frob (cov c - 1)

/-- The normalized gap `D = δ / (2ρ(1-ρ))` (Lean's division: `x / 0 = 0`). -/
def normalizedGap (δ ρ : ℝ) : ℝ :=
  δ / (2 * ρ * (1 - ρ))

/-- The squared mean `‖μ‖² = ∑_i (c i 0)²`. -/
def meanSq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : ℝ :=
  ∑ i, mean c i ^ 2

/-- The Hermite coefficients of `z ↦ (Q z)_i`: `Q i j` at `α = e_j`, zero elsewhere. -/
def linCoeff (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) : (Fin n →₀ ℕ) →₀ ℝ :=
  ∑ j, Finsupp.single (Finsupp.single j 1) (Q i j)

/-- The recovery error against `Q`, in coefficient space:
`∑_i ∑_α (c i α - linCoeff Q i α)² α!`, i.e. `E‖h(z) - Qz‖²` by Hermite orthogonality (the
sum runs over the finite support of the difference; all other terms vanish). -/
def recoveryError (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ) : ℝ :=
  ∑ i, ∑ α ∈ (c i - linCoeff Q i).support, ((c i - linCoeff Q i) α) ^ 2 * mfact α

/-- All multi-indices carrying a nonzero coefficient in some component. -/
def allSupport (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : Finset (Fin n →₀ ℕ) :=
  Finset.univ.biUnion fun i => (c i).support

/-- The common nonlinear index set `{α ∈ allSupport c | |α| ≥ 2}`. -/
def nlIndex (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : Finset (Fin n →₀ ℕ) :=
  (allSupport c).filter fun α => 2 ≤ deg α

/-- The nonlinear part of the covariance, `C_N i k = ∑_{|α| ≥ 2} c i α c k α α!`. -/
def nlCov (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : Matrix (Fin n) (Fin n) ℝ :=
  Matrix.of fun i k => ∑ α ∈ nlIndex c, c i α * c k α * mfact α

/-- Entries of `C_N` (definitional). -/
theorem nlCov_apply (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    nlCov c i k = ∑ α ∈ nlIndex c, c i α * c k α * mfact α :=
  rfl

/-! ## Layer 2: the spectral gap (L2a) -/

theorem nonlinEnergy_nonneg (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : 0 ≤ nonlinEnergy c :=
  Finset.sum_nonneg fun _ _ => Finset.sum_nonneg fun α _ =>
    mul_nonneg (sq_nonneg _) (mfact_nonneg α)

theorem cov_diag (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) : cov c i i = variance c i :=
  (variance_eq_cov_self c i).symm

theorem trace_cov (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    Matrix.trace (cov c) = ∑ i, variance c i := by
  rw [Matrix.trace]
  exact Finset.sum_congr rfl fun i _ => cov_diag c i

theorem traceGap_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) :
    traceGap c ρ = ∑ i, 2 * (ρ * variance c i - corr c ρ i) := by
  rw [traceGap, alignLoss, trace_cov, Finset.mul_sum, ← Finset.sum_sub_distrib]
  exact Finset.sum_congr rfl fun i _ => by ring

theorem two_mul_sub_corr_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) (i : Fin n) :
    2 * (ρ * variance c i - corr c ρ i) =
      ∑ α ∈ ncSupport c i, 2 * ((c i α) ^ 2 * mfact α) * (ρ - ρ ^ deg α) := by
  rw [variance, corr, Finset.mul_sum, ← Finset.sum_sub_distrib, Finset.mul_sum]
  exact Finset.sum_congr rfl fun α _ => by ring

theorem nlSupport_subset (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    nlSupport c i ⊆ ncSupport c i := by
  intro α hα
  rw [nlSupport, Finset.mem_filter] at hα
  rw [ncSupport, Finset.mem_filter]
  refine ⟨hα.1, fun h => ?_⟩
  have h2 := hα.2
  rw [h, deg_zero] at h2
  omega

theorem nonlin_le_component (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1)
    (i : Fin n) :
    2 * (ρ * (1 - ρ)) * ∑ α ∈ nlSupport c i, (c i α) ^ 2 * mfact α ≤
      2 * (ρ * variance c i - corr c ρ i) := by
  rw [two_mul_sub_corr_eq, ← Finset.sum_subset (nlSupport_subset c i), Finset.mul_sum]
  · refine Finset.sum_le_sum fun α hα => ?_
    have hd : 2 ≤ deg α := (Finset.mem_filter.mp hα).2
    have hgap := mul_one_sub_le_sub_pow h0 h1 hd
    have hnn : 0 ≤ (c i α) ^ 2 * mfact α := mul_nonneg (sq_nonneg _) (mfact_nonneg α)
    nlinarith [mul_le_mul_of_nonneg_left hgap hnn]
  · intro α hα hα'
    have hne : α ≠ 0 := (Finset.mem_filter.mp hα).2
    have hsupp : α ∈ (c i).support := (Finset.mem_filter.mp hα).1
    have hd1 : deg α ≠ 0 := fun h => hne ((deg_eq_zero_iff α).mp h)
    have hd2 : ¬ 2 ≤ deg α := fun h => hα' (Finset.mem_filter.mpr ⟨hsupp, h⟩)
    have hd : deg α = 1 := by omega
    rw [hd, pow_one, sub_self, mul_zero]

/-- (L2a) **Spectral gap.** `2ρ(1-ρ) N ≤ δ_tr`, because
`δ_tr = ∑_i ∑_{α ≠ 0} 2 (c i α)² α! (ρ - ρ^|α|)` and `ρ - ρ^d ≥ ρ(1-ρ)` for `d ≥ 2`. -/
theorem two_mul_nonlinEnergy_le_traceGap (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ}
    (h0 : 0 < ρ) (h1 : ρ < 1) :
    2 * (ρ * (1 - ρ)) * nonlinEnergy c ≤ traceGap c ρ := by
  rw [traceGap_eq, nonlinEnergy, Finset.mul_sum]
  exact Finset.sum_le_sum fun i _ => nonlin_le_component c h0 h1 i

/-- The trace gap is never negative (no clamping needed). -/
theorem traceGap_nonneg (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) :
    0 ≤ traceGap c ρ :=
  le_trans (mul_nonneg (mul_nonneg zero_le_two (mul_nonneg h0.le (sub_nonneg.mpr h1.le)))
    (nonlinEnergy_nonneg c)) (two_mul_nonlinEnergy_le_traceGap c h0 h1)

/-- `N ≤ D_tr = δ_tr / (2ρ(1-ρ))`. -/
theorem nonlinEnergy_le_normalizedGap (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ}
    (h0 : 0 < ρ) (h1 : ρ < 1) :
    nonlinEnergy c ≤ normalizedGap (traceGap c ρ) ρ := by
  have hpos : 0 < 2 * ρ * (1 - ρ) := mul_pos (mul_pos two_pos h0) (sub_pos.mpr h1)
  have h := two_mul_nonlinEnergy_le_traceGap c h0 h1
  rw [normalizedGap, le_div_iff₀ hpos]
  linarith

/-! ## Layer 2: the Pythagorean split (L2b) -/

theorem linCoeff_single (Q : Matrix (Fin n) (Fin n) ℝ) (i j : Fin n) :
    linCoeff Q i (Finsupp.single j 1) = Q i j := by
  rw [linCoeff, Finsupp.finsetSum_apply, Finset.sum_eq_single j]
  · exact Finsupp.single_eq_same
  · intro b _ hb
    exact Finsupp.single_eq_of_ne fun h =>
      hb (Finsupp.single_left_injective (one_ne_zero : (1 : ℕ) ≠ 0) h).symm
  · intro h
    exact absurd (Finset.mem_univ j) h

theorem linCoeff_of_deg_ne_one (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) {α : Fin n →₀ ℕ}
    (hα : deg α ≠ 1) : linCoeff Q i α = 0 := by
  rw [linCoeff, Finsupp.finsetSum_apply]
  refine Finset.sum_eq_zero fun j _ => Finsupp.single_eq_of_ne fun h => hα ?_
  rw [h]
  exact deg_single j

theorem linCoeff_zero (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) : linCoeff Q i 0 = 0 :=
  linCoeff_of_deg_ne_one Q i (α := 0) (by rw [deg_zero]; omega)

/-- Per component: `∑_α (c i α - q_i α)² α! = μ_i² + ∑_j (A_ij - Q_ij)² + N_i`. -/
theorem component_error_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ)
    (i : Fin n) :
    ∑ α ∈ (c i - linCoeff Q i).support, ((c i - linCoeff Q i) α) ^ 2 * mfact α =
      mean c i ^ 2 + ∑ j, (linearPart c - Q) i j ^ 2 +
        ∑ α ∈ nlSupport c i, (c i α) ^ 2 * mfact α := by
  have hg1 : ∀ j, Finsupp.single j 1 ∉ (c i - linCoeff Q i).support →
      ((c i - linCoeff Q i) (Finsupp.single j 1)) ^ 2 * mfact (Finsupp.single j 1) = 0 := by
    intro j hj
    rw [Finsupp.notMem_support_iff.mp hj]
    ring
  have hg0 : (0 : Fin n →₀ ℕ) ∉ (c i - linCoeff Q i).support →
      ((c i - linCoeff Q i) 0) ^ 2 * mfact 0 = 0 := by
    intro h
    rw [Finsupp.notMem_support_iff.mp h]
    ring
  have h0' : ((c i - linCoeff Q i) 0) ^ 2 * mfact 0 = mean c i ^ 2 := by
    rw [Finsupp.sub_apply, linCoeff_zero, sub_zero, mfact_zero, mul_one, mean]
  have h1' : ∑ j, ((c i - linCoeff Q i) (Finsupp.single j 1)) ^ 2 *
      mfact (Finsupp.single j 1) = ∑ j, (linearPart c - Q) i j ^ 2 := by
    refine Finset.sum_congr rfl fun j _ => ?_
    rw [Finsupp.sub_apply, linCoeff_single, mfact_single, mul_one, Matrix.sub_apply,
      linearPart_apply]
  have hset : (c i - linCoeff Q i).support.filter (fun α => 2 ≤ deg α) = nlSupport c i := by
    ext α
    rw [nlSupport, Finset.mem_filter, Finset.mem_filter, Finsupp.mem_support_iff,
      Finsupp.mem_support_iff]
    constructor
    · rintro ⟨h1, h2⟩
      refine ⟨?_, h2⟩
      rwa [Finsupp.sub_apply, linCoeff_of_deg_ne_one Q i (show deg α ≠ 1 by omega),
        sub_zero] at h1
    · rintro ⟨h1, h2⟩
      refine ⟨?_, h2⟩
      rwa [Finsupp.sub_apply, linCoeff_of_deg_ne_one Q i (show deg α ≠ 1 by omega), sub_zero]
  have h2' : ∑ α ∈ (c i - linCoeff Q i).support.filter (fun α => 2 ≤ deg α),
      ((c i - linCoeff Q i) α) ^ 2 * mfact α = ∑ α ∈ nlSupport c i, (c i α) ^ 2 * mfact α := by
    rw [hset]
    refine Finset.sum_congr rfl fun α hα => ?_
    have hd : 2 ≤ deg α := (Finset.mem_filter.mp hα).2
    rw [Finsupp.sub_apply, linCoeff_of_deg_ne_one Q i (show deg α ≠ 1 by omega), sub_zero]
  rw [sum_split_deg (c i - linCoeff Q i).support
      (fun α => ((c i - linCoeff Q i) α) ^ 2 * mfact α) hg1,
    sum_low_eq (c i - linCoeff Q i).support
      (fun α => ((c i - linCoeff Q i) α) ^ 2 * mfact α) hg0,
    h0', h1', h2']

set_option backward.isDefEq.respectTransparency false in
/-- (L2b) **Pythagorean split.** The recovery error against any matrix `Q` is
`‖μ‖² + ‖A - Q‖_F² + N`. -/
theorem recoveryError_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ) :
    recoveryError c Q = meanSq c + frob (linearPart c - Q) ^ 2 + nonlinEnergy c := by
  have hsum : recoveryError c Q = ∑ i, (mean c i ^ 2 + ∑ j, (linearPart c - Q) i j ^ 2 +
      ∑ α ∈ nlSupport c i, (c i α) ^ 2 * mfact α) :=
    Finset.sum_congr rfl fun i _ => component_error_eq c Q i
  rw [hsum, Finset.sum_add_distrib, Finset.sum_add_distrib, frob_sq, meanSq, nonlinEnergy]

theorem recoveryError_nonneg (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ) :
    0 ≤ recoveryError c Q :=
  Finset.sum_nonneg fun _ _ => Finset.sum_nonneg fun α _ =>
    mul_nonneg (sq_nonneg _) (mfact_nonneg α)

/-! ## Layer 2: the covariance split and the Gram bound (L2c) -/

theorem mem_allSupport {c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)} {i : Fin n} {α : Fin n →₀ ℕ}
    (h : α ∈ (c i).support) : α ∈ allSupport c :=
  Finset.mem_biUnion.mpr ⟨i, Finset.mem_univ i, h⟩

set_option backward.isDefEq.respectTransparency false in
/-- `Cov = A Aᵀ + C_N`. -/
theorem cov_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    cov c = linearPart c * (linearPart c)ᵀ + nlCov c := by
  ext i k
  rw [Matrix.add_apply, Matrix.mul_apply]
  have hg : ∀ j, Finsupp.single j 1 ∉ covSupport c i k →
      c i (Finsupp.single j 1) * c k (Finsupp.single j 1) * mfact (Finsupp.single j 1) = 0 := by
    intro j hj
    by_cases hi : c i (Finsupp.single j 1) = 0
    · rw [hi, zero_mul, zero_mul]
    · exact (hj (Finset.mem_filter.mpr
        ⟨Finset.mem_union_left _ (Finsupp.mem_support_iff.mpr hi), single_one_ne_zero j⟩)).elim
  have hlow : ∑ α ∈ ((covSupport c i k).filter fun α => ¬ 2 ≤ deg α).filter
      (fun α => ¬ deg α = 1), c i α * c k α * mfact α = 0 := by
    refine Finset.sum_eq_zero fun α hα => ?_
    have h0 := eq_zero_of_mem_low hα
    have hmem : α ∈ covSupport c i k := (Finset.mem_filter.mp (Finset.mem_filter.mp hα).1).1
    exact absurd h0 (Finset.mem_filter.mp hmem).2
  have hlin : ∑ j, c i (Finsupp.single j 1) * c k (Finsupp.single j 1) *
      mfact (Finsupp.single j 1) = ∑ j, linearPart c i j * (linearPart c)ᵀ j k := by
    refine Finset.sum_congr rfl fun j _ => ?_
    simp only [mfact_single, mul_one, Matrix.transpose_apply, linearPart_apply]
  have hsub : (covSupport c i k).filter (fun α => 2 ≤ deg α) ⊆ nlIndex c := by
    intro α hα
    obtain ⟨hcov, h2⟩ := Finset.mem_filter.mp hα
    obtain ⟨hun, _⟩ := Finset.mem_filter.mp hcov
    refine Finset.mem_filter.mpr ⟨?_, h2⟩
    rcases Finset.mem_union.mp hun with h | h
    · exact mem_allSupport h
    · exact mem_allSupport h
  have hnl : ∑ α ∈ (covSupport c i k).filter (fun α => 2 ≤ deg α), c i α * c k α * mfact α =
      nlCov c i k := by
    rw [nlCov_apply]
    refine Finset.sum_subset hsub fun α hα hα' => ?_
    have h2 : 2 ≤ deg α := (Finset.mem_filter.mp hα).2
    have hne : α ≠ 0 := fun h => by
      rw [h, deg_zero] at h2
      omega
    by_cases hi : c i α = 0
    · rw [hi, zero_mul, zero_mul]
    · exact (hα' (Finset.mem_filter.mpr ⟨Finset.mem_filter.mpr
        ⟨Finset.mem_union_left _ (Finsupp.mem_support_iff.mpr hi), hne⟩, h2⟩)).elim
  -- `cov_apply` (definitional) states the entry as `∑ α ∈ covSupport c i k, c i α * c k α * α!`
  rw [cov_apply, sum_split_deg (covSupport c i k) (fun α => c i α * c k α * mfact α) hg, hlow,
    zero_add, hlin, hnl]

/-- `‖C_N‖_F ≤ tr C_N = N` (Gram matrix bound). -/
theorem frob_nlCov_le (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : frob (nlCov c) ≤ nonlinEnergy c := by
  have hG := sum_sum_sq_weighted_le (nlIndex c) mfact (fun α _ => mfact_nonneg α)
    (fun i α => c i α)
  have hN : ∑ i, ∑ α ∈ nlIndex c, c i α ^ 2 * mfact α = nonlinEnergy c := by
    rw [nonlinEnergy]
    refine Finset.sum_congr rfl fun i _ => ?_
    have hsub : nlSupport c i ⊆ nlIndex c := by
      intro α hα
      obtain ⟨hs, h2⟩ := Finset.mem_filter.mp hα
      exact Finset.mem_filter.mpr ⟨mem_allSupport hs, h2⟩
    -- flip first, so that `Finset.sum_subset` is elaborated against a known expected type
    symm
    refine Finset.sum_subset hsub fun α hα hα' => ?_
    have h2 : 2 ≤ deg α := (Finset.mem_filter.mp hα).2
    by_cases hi : c i α = 0
    · rw [hi]
      ring
    · exact (hα' (Finset.mem_filter.mpr ⟨Finsupp.mem_support_iff.mpr hi, h2⟩)).elim
  apply frob_le_of_sq_le (nonlinEnergy_nonneg c)
  calc ∑ i, ∑ k, nlCov c i k ^ 2
      = ∑ i, ∑ k, (∑ α ∈ nlIndex c, c i α * c k α * mfact α) ^ 2 := by
        simp only [nlCov_apply]
    _ ≤ (∑ i, ∑ α ∈ nlIndex c, c i α ^ 2 * mfact α) ^ 2 := hG
    _ = nonlinEnergy c ^ 2 := by rw [hN]

/-- (L2c) `‖A Aᵀ - 1‖_F ≤ ε + N`, since `A Aᵀ - 1 = (Cov - 1) - C_N`. -/
theorem frob_linear_gram_le (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    frob (linearPart c * (linearPart c)ᵀ - 1) ≤ whiteningError c + nonlinEnergy c := by
  have h : linearPart c * (linearPart c)ᵀ - 1 = (cov c - 1) - nlCov c := by
    rw [cov_eq]
    abel
  rw [h, whiteningError]
  linarith [frob_sub_le (cov c - 1) (nlCov c), frob_nlCov_le c]

/-! ## Layer 2: the assembled theorem (L2d) -/

/-- **Theorem 4.3 (approximate identifiability), corrected form, coefficient model.**

The paper claims `E‖h(z) - Qz‖² ≤ D + (ε + D)²` for some orthogonal `Q`, with
`D = δ / (2ρ(1-ρ))`, `δ = L_align - 2(1-ρ)n`, `ε = ‖Cov(h(z)) - Iₙ‖_F`.

Proved here, for every encoder with finitely many Hermite coefficients and every `0 < ρ < 1`
(no other hypothesis): some `Q ∈ O(n)` satisfies
`recoveryError c Q ≤ ‖μ‖² + D_tr + (ε + D_tr)²`, where `D_tr = δ_tr / (2ρ(1-ρ))` and
`δ_tr = L_align - 2(1-ρ) tr Cov` (`traceGap`, always `≥ 0`).

Differences from the paper: (1) the gap is measured against `tr Cov`, not `n` (they agree when
every component has unit variance; see `approximate_identifiability_paper_form`); (2) the mean
term `‖μ‖²` appears, because `L_align` does not see the mean; (3) the statement lives in the
Hermite coefficient model: `recoveryError`, `cov`, `alignLoss` are the orthogonality/Mehler
formulas (that they are the Gaussian integrals, and this theorem with integrals, is
`Lejepa.GaussianIdent.approximate_identifiability_gaussian`); (4) finitely many coefficients. -/
theorem approximate_identifiability (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ}
    (h0 : 0 < ρ) (h1 : ρ < 1) :
    ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ,
      recoveryError c Q ≤ meanSq c + normalizedGap (traceGap c ρ) ρ +
        (whiteningError c + normalizedGap (traceGap c ρ) ρ) ^ 2 := by
  obtain ⟨Q, hQ, hAQ⟩ := exists_orthogonal_frob_sub_le (linearPart c)
  refine ⟨Q, hQ, ?_⟩
  have hN := nonlinEnergy_le_normalizedGap c h0 h1
  have hN0 := nonlinEnergy_nonneg c
  have hG := frob_linear_gram_le c
  rw [← frob_transpose_mul_sub_one] at hG
  have hF : frob (linearPart c - Q) ≤ whiteningError c + normalizedGap (traceGap c ρ) ρ := by
    linarith
  have hF2 : frob (linearPart c - Q) ^ 2 ≤
      (whiteningError c + normalizedGap (traceGap c ρ) ρ) ^ 2 :=
    pow_le_pow_left₀ (frob_nonneg _) hF 2
  rw [recoveryError_eq]
  linarith

set_option backward.isDefEq.respectTransparency false in
/-- **The paper's form of Theorem 4.3, under the paper's normalisation.** If every component has
mean `0` and variance `1`, then `tr Cov = n`, the trace gap is the paper's `δ`, the mean term
vanishes, and some `Q ∈ O(n)` satisfies `recoveryError c Q ≤ D + (ε + D)²` with the paper's
`D = δ / (2ρ(1-ρ))`. -/
theorem approximate_identifiability_paper_form (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ}
    (h0 : 0 < ρ) (h1 : ρ < 1) (hmean : ∀ i, mean c i = 0) (hvar : ∀ i, variance c i = 1) :
    ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ,
      recoveryError c Q ≤ normalizedGap (paperGap c ρ) ρ +
        (whiteningError c + normalizedGap (paperGap c ρ) ρ) ^ 2 := by
  have htr : Matrix.trace (cov c) = (n : ℝ) := by
    -- `sum_const_fin` (`Lejepa.Hermite`) states `∑ _i : Fin n, x = (n : ℝ) * x` with the cast as
    -- elaborated by instance search, the same cast as the goal's `(n : ℝ)`
    rw [trace_cov, Finset.sum_congr rfl fun i _ => hvar i, sum_const_fin, mul_one]
  have hgap : traceGap c ρ = paperGap c ρ := by
    rw [traceGap, paperGap, htr]
  have hmu : meanSq c = 0 := by
    rw [meanSq]
    exact Finset.sum_eq_zero fun i _ => by rw [hmean i]; ring
  obtain ⟨Q, hQ, hle⟩ := approximate_identifiability c h0 h1
  refine ⟨Q, hQ, ?_⟩
  rw [hgap, hmu, zero_add] at hle
  exact hle

/-! ## The paper's unqualified form fails: `h(z) = z / 2`, `n = 1`, `ρ = 9/10` -/

/-- The one-dimensional linear encoder `h(z) = z / 2` (coefficient `1/2` at `α = e_0`). -/
def halfEncoder : Fin 1 → ((Fin 1 →₀ ℕ) →₀ ℝ) :=
  fun _ => Finsupp.single (Finsupp.single 0 1) (1 / 2)

theorem halfEncoder_apply (i : Fin 1) : halfEncoder i (Finsupp.single 0 1) = 1 / 2 :=
  Finsupp.single_eq_same

theorem halfEncoder_support (i : Fin 1) :
    (halfEncoder i).support = {Finsupp.single 0 1} :=
  Finsupp.support_single _ (by norm_num)

theorem ncSupport_halfEncoder (i : Fin 1) : ncSupport halfEncoder i = {Finsupp.single 0 1} := by
  rw [ncSupport, halfEncoder_support]
  -- `Finset.filter_true_of_mem` (`Data/Finset/Filter.lean`) via `exact`: the `DecidablePred`
  -- instance is unified with the goal's, not matched by a rewrite
  exact Finset.filter_true_of_mem fun α hα => by
    rw [Finset.mem_singleton.mp hα]
    exact single_one_ne_zero (0 : Fin 1)

theorem variance_halfEncoder (i : Fin 1) : variance halfEncoder i = 1 / 4 := by
  rw [variance, ncSupport_halfEncoder, Finset.sum_singleton, halfEncoder_apply, mfact_single]
  norm_num

theorem corr_halfEncoder (ρ : ℝ) (i : Fin 1) : corr halfEncoder ρ i = 1 / 4 * ρ := by
  rw [corr, ncSupport_halfEncoder, Finset.sum_singleton, halfEncoder_apply, mfact_single,
    deg_single]
  ring

theorem alignLoss_halfEncoder (ρ : ℝ) : alignLoss halfEncoder ρ = 2 * (1 / 4 - 1 / 4 * ρ) := by
  rw [alignLoss, Fin.sum_univ_one, variance_halfEncoder, corr_halfEncoder]

theorem whiteningError_halfEncoder : whiteningError halfEncoder = 3 / 4 := by
  rw [whiteningError, frob, Fin.sum_univ_one, Fin.sum_univ_one, Matrix.sub_apply, cov_diag,
    variance_halfEncoder, Matrix.one_apply_eq]
  -- `√x = y ↔ y * y = x` for `0 < y` (`Real.sqrt_eq_iff_mul_self_eq_of_pos`,
  -- `Analysis/Real/Sqrt.lean`); `norm_num` then evaluates both sides, whatever form they have
  rw [Real.sqrt_eq_iff_mul_self_eq_of_pos (by norm_num : (0 : ℝ) < 3 / 4)]
  norm_num

/-- **The paper's form of Theorem 4.3 is false without its normalisation.** For the linear
encoder `h(z) = z / 2` in one dimension and `ρ = 9/10`: the paper's gap is
`δ = L_align - 2(1-ρ)n = -3/20 < 0`, `D = -5/6`, `ε = 3/4`, and the paper's right-hand side
`D + (ε + D)² = -119/144` is negative, so it is below the recovery error against *every* matrix
`Q` (orthogonal or not); for orthogonal `Q = ±1` the error is `(1/2 ∓ 1)² ≥ 1/4`. The corrected
`approximate_identifiability` is not affected: here `δ_tr = 0`. -/
theorem paper_form_counterexample :
    normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10) +
        (whiteningError halfEncoder + normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10)) ^ 2
      < 0 ∧
    ∀ Q : Matrix (Fin 1) (Fin 1) ℝ,
      normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10) +
          (whiteningError halfEncoder + normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10)) ^ 2
        < recoveryError halfEncoder Q := by
  have hD : normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10) = -5 / 6 := by
    rw [normalizedGap, paperGap, alignLoss_halfEncoder]
    norm_num
  have hb : normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10) +
      (whiteningError halfEncoder + normalizedGap (paperGap halfEncoder (9 / 10)) (9 / 10)) ^ 2
        < 0 := by
    rw [hD, whiteningError_halfEncoder]
    norm_num
  exact ⟨hb, fun Q => lt_of_lt_of_le hb (recoveryError_nonneg halfEncoder Q)⟩

/-! ## The paper's form fails also with `δ > 0`: a near-optimal encoder, `n = 1`, `ρ = 9/10`

`paper_form_counterexample` has a negative paper gap `δ`; clamping `δ` at `0` (as the authors' code
does) would rescue it. The encoder `h = (99/100) He₁ + (2/25) He₂` has `δ > 0`, so every reading
of `δ` (raw or clamped at `0`) gives the same `D`, and the paper's bound still fails, for every
matrix `Q`. The reason is `tr Cov = 9929/10000 < n = 1`: the paper's `δ` subtracts `2(1-ρ)n`
instead of `2(1-ρ) tr Cov`. -/

theorem single_two_ne_single_one : (Finsupp.single 0 2 : Fin 1 →₀ ℕ) ≠ Finsupp.single 0 1 :=
  fun h => absurd (Finsupp.single_injective (0 : Fin 1) h) (by norm_num)

theorem single_two_ne_zero : (Finsupp.single 0 2 : Fin 1 →₀ ℕ) ≠ 0 :=
  Finsupp.single_ne_zero.mpr two_ne_zero

theorem deg_single_two : deg (Finsupp.single 0 2 : Fin 1 →₀ ℕ) = 2 := by
  unfold deg
  rw [Fin.sum_univ_one, Finsupp.single_eq_same]

theorem mfact_single_two : mfact (Finsupp.single 0 2 : Fin 1 →₀ ℕ) = 2 := by
  have h : mfact (Finsupp.single 0 2 : Fin 1 →₀ ℕ) = ((Nat.factorial 2 : ℕ) : ℝ) := by
    unfold mfact
    rw [Fin.prod_univ_one, Finsupp.single_eq_same]
  rw [h]
  norm_num [Nat.factorial_two]

/-- The one-dimensional encoder `h(z) = (99/100) He₁(z) + (2/25) He₂(z)`
(`He₁ = z`, `He₂ = z² - 1`). -/
def nearEncoder (_ : Fin 1) : (Fin 1 →₀ ℕ) →₀ ℝ :=
  Finsupp.single (Finsupp.single 0 1 : Fin 1 →₀ ℕ) (99 / 100 : ℝ) +
    Finsupp.single (Finsupp.single 0 2 : Fin 1 →₀ ℕ) (2 / 25 : ℝ)

theorem nearEncoder_eq (i : Fin 1) :
    nearEncoder i = Finsupp.single (Finsupp.single 0 1 : Fin 1 →₀ ℕ) (99 / 100 : ℝ) +
      Finsupp.single (Finsupp.single 0 2 : Fin 1 →₀ ℕ) (2 / 25 : ℝ) :=
  rfl

theorem nearEncoder_apply_one (i : Fin 1) : nearEncoder i (Finsupp.single 0 1) = 99 / 100 := by
  rw [nearEncoder_eq, Finsupp.add_apply, Finsupp.single_eq_same,
    Finsupp.single_eq_of_ne single_two_ne_single_one.symm]
  norm_num

theorem nearEncoder_apply_two (i : Fin 1) : nearEncoder i (Finsupp.single 0 2) = 2 / 25 := by
  rw [nearEncoder_eq, Finsupp.add_apply, Finsupp.single_eq_of_ne single_two_ne_single_one,
    Finsupp.single_eq_same]
  norm_num

theorem nearEncoder_apply_zero (i : Fin 1) : nearEncoder i 0 = 0 := by
  rw [nearEncoder_eq, Finsupp.add_apply,
    Finsupp.single_eq_of_ne (single_one_ne_zero (0 : Fin 1)).symm,
    Finsupp.single_eq_of_ne single_two_ne_zero.symm]
  norm_num

theorem nearEncoder_support (i : Fin 1) :
    (nearEncoder i).support = {Finsupp.single 0 1, Finsupp.single 0 2} := by
  have h1 : (Finsupp.single (Finsupp.single 0 1 : Fin 1 →₀ ℕ) (99 / 100 : ℝ)).support =
      {Finsupp.single 0 1} := Finsupp.support_single _ (by norm_num)
  have h2 : (Finsupp.single (Finsupp.single 0 2 : Fin 1 →₀ ℕ) (2 / 25 : ℝ)).support =
      {Finsupp.single 0 2} := Finsupp.support_single _ (by norm_num)
  have hd : Disjoint (Finsupp.single (Finsupp.single 0 1 : Fin 1 →₀ ℕ) (99 / 100 : ℝ)).support
      (Finsupp.single (Finsupp.single 0 2 : Fin 1 →₀ ℕ) (2 / 25 : ℝ)).support := by
    rw [h1, h2]
    exact Finset.disjoint_singleton.mpr single_two_ne_single_one.symm
  -- `Finsupp.support_add_eq` (`Algebra/Group/Finsupp.lean`); `{a, b} = insert a {b} = {a} ∪ {b}`
  rw [nearEncoder_eq, Finsupp.support_add_eq hd, h1, h2, Finset.insert_eq]

theorem ncSupport_nearEncoder (i : Fin 1) :
    ncSupport nearEncoder i = {Finsupp.single 0 1, Finsupp.single 0 2} := by
  rw [ncSupport, nearEncoder_support]
  exact Finset.filter_true_of_mem fun α hα => by
    rcases Finset.mem_insert.mp hα with h | h
    · subst h
      exact single_one_ne_zero (0 : Fin 1)
    · rw [Finset.mem_singleton] at h
      subst h
      exact single_two_ne_zero

theorem nlSupport_nearEncoder (i : Fin 1) : nlSupport nearEncoder i = {Finsupp.single 0 2} := by
  ext α
  rw [nlSupport, Finset.mem_filter, nearEncoder_support, Finset.mem_insert, Finset.mem_singleton]
  constructor
  · rintro ⟨h | h, hd⟩
    · subst h
      exact absurd hd (not_two_le_deg_single (0 : Fin 1))
    · exact h
  · intro h
    subst h
    exact ⟨Or.inr rfl, le_of_eq deg_single_two.symm⟩

theorem variance_nearEncoder (i : Fin 1) : variance nearEncoder i = 9929 / 10000 := by
  rw [variance, ncSupport_nearEncoder, Finset.sum_pair single_two_ne_single_one.symm,
    nearEncoder_apply_one, nearEncoder_apply_two, mfact_single, mfact_single_two]
  norm_num

theorem corr_nearEncoder (ρ : ℝ) (i : Fin 1) :
    corr nearEncoder ρ i = 9801 / 10000 * ρ + 128 / 10000 * ρ ^ 2 := by
  rw [corr, ncSupport_nearEncoder, Finset.sum_pair single_two_ne_single_one.symm,
    nearEncoder_apply_one, nearEncoder_apply_two, mfact_single, mfact_single_two, deg_single,
    deg_single_two]
  ring

theorem alignLoss_nearEncoder (ρ : ℝ) :
    alignLoss nearEncoder ρ = 2 * (9929 / 10000 - (9801 / 10000 * ρ + 128 / 10000 * ρ ^ 2)) := by
  rw [alignLoss, Fin.sum_univ_one, variance_nearEncoder, corr_nearEncoder]

/-- The paper's gap is positive: `δ = L_align - 2(1-ρ)n = 221/250000`. -/
theorem paperGap_nearEncoder : paperGap nearEncoder (9 / 10) = 221 / 250000 := by
  rw [paperGap, alignLoss_nearEncoder]
  norm_num

/-- The trace gap `δ_tr = L_align - 2(1-ρ) tr Cov = 36/15625`. -/
theorem traceGap_nearEncoder : traceGap nearEncoder (9 / 10) = 36 / 15625 := by
  rw [traceGap, alignLoss_nearEncoder, trace_cov, Fin.sum_univ_one, variance_nearEncoder]
  norm_num

theorem whiteningError_nearEncoder : whiteningError nearEncoder = 71 / 10000 := by
  rw [whiteningError, frob, Fin.sum_univ_one, Fin.sum_univ_one, Matrix.sub_apply, cov_diag,
    variance_nearEncoder, Matrix.one_apply_eq]
  rw [Real.sqrt_eq_iff_mul_self_eq_of_pos (by norm_num : (0 : ℝ) < 71 / 10000)]
  norm_num

theorem meanSq_nearEncoder : meanSq nearEncoder = 0 := by
  rw [meanSq, Fin.sum_univ_one, mean, nearEncoder_apply_zero]
  norm_num

theorem nonlinEnergy_nearEncoder : nonlinEnergy nearEncoder = 8 / 625 := by
  rw [nonlinEnergy, Fin.sum_univ_one, nlSupport_nearEncoder, Finset.sum_singleton,
    nearEncoder_apply_two, mfact_single_two]
  norm_num

/-- The paper's right-hand side `D + (ε + D)²` with `D = 221/45000`, `ε = 71/10000`. -/
theorem paperBound_nearEncoder :
    normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10) +
        (whiteningError nearEncoder + normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10)) ^ 2
      = 40948561 / 8100000000 := by
  have hD : normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10) = 221 / 45000 := by
    rw [normalizedGap, paperGap_nearEncoder]
    norm_num
  rw [hD, whiteningError_nearEncoder]
  norm_num

/-- The corrected right-hand side `‖μ‖² + D_tr + (ε + D_tr)²` with `D_tr = 8/625`. -/
theorem correctedBound_nearEncoder :
    meanSq nearEncoder + normalizedGap (traceGap nearEncoder (9 / 10)) (9 / 10) +
        (whiteningError nearEncoder + normalizedGap (traceGap nearEncoder (9 / 10)) (9 / 10)) ^ 2
      = 1319601 / 100000000 := by
  have hD : normalizedGap (traceGap nearEncoder (9 / 10)) (9 / 10) = 8 / 625 := by
    rw [normalizedGap, traceGap_nearEncoder]
    norm_num
  rw [hD, whiteningError_nearEncoder, meanSq_nearEncoder]
  norm_num

/-- The recovery error against any matrix `Q`: `(99/100 - Q₀₀)² + 8/625`. -/
theorem recoveryError_nearEncoder (Q : Matrix (Fin 1) (Fin 1) ℝ) :
    recoveryError nearEncoder Q = (99 / 100 - Q 0 0) ^ 2 + 8 / 625 := by
  rw [recoveryError_eq, meanSq_nearEncoder, nonlinEnergy_nearEncoder, frob_sq, Fin.sum_univ_one,
    Fin.sum_univ_one, Matrix.sub_apply, linearPart_apply, nearEncoder_apply_one]
  ring

/-- Every `Q ∈ O(1)` has `Q₀₀² = 1`, so its recovery error is at least `129/10000`
(attained at `Q = 1`; `Q = -1` gives `39729/10000`). -/
theorem recoveryError_nearEncoder_ge {Q : Matrix (Fin 1) (Fin 1) ℝ}
    (hQ : Q ∈ Matrix.orthogonalGroup (Fin 1) ℝ) : 129 / 10000 ≤ recoveryError nearEncoder Q := by
  have hq : Q 0 0 * Q 0 0 = 1 := by
    -- `Matrix.mem_orthogonalGroup_iff` takes `n` and `R` explicitly (`variable (n) (R : Type v)`,
    -- `LinearAlgebra/UnitaryGroup.lean`), so they are supplied before `.mp`
    have hQQ : Q * Qᵀ = 1 := (Matrix.mem_orthogonalGroup_iff (Fin 1) ℝ).mp hQ
    have h : (Q * Qᵀ) 0 0 = (1 : Matrix (Fin 1) (Fin 1) ℝ) 0 0 := congrFun (congrFun hQQ 0) 0
    rw [Matrix.mul_apply, Fin.sum_univ_one, Matrix.transpose_apply, Matrix.one_apply_eq] at h
    exact h
  rw [recoveryError_nearEncoder]
  nlinarith [sq_nonneg (Q 0 0 - 1), hq]

/-- **The paper's form of Theorem 4.3 fails for a near-optimal encoder with `δ > 0`.**
For `h = (99/100) He₁ + (2/25) He₂` in one dimension and `ρ = 9/10`: the paper's gap
`δ = L_align - 2(1-ρ)n = 221/250000` is positive (so clamping `δ` at `0` changes nothing),
`D = 221/45000 ≈ 0.0049`, `ε = 71/10000`, and the paper's right-hand side
`D + (ε + D)² = 40948561/8100000000 ≈ 0.00506` is below the recovery error against *every*
matrix `Q` (the error is at least the nonlinear energy `N = 8/625 = 0.0128`); for `Q ∈ O(1)` it
is at least `129/10000` (`Q = 1`). The corrected bound of `approximate_identifiability` holds:
`‖μ‖² + D_tr + (ε + D_tr)² = 1319601/100000000 ≈ 0.0132 ≥ 129/10000`. The failure comes from
`tr Cov = 9929/10000 < n`. -/
theorem paper_form_counterexample_pos_delta :
    0 < paperGap nearEncoder (9 / 10) ∧
    normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10) +
        (whiteningError nearEncoder + normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10)) ^ 2
      < 51 / 10000 ∧
    (∀ Q : Matrix (Fin 1) (Fin 1) ℝ,
      normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10) +
          (whiteningError nearEncoder + normalizedGap (paperGap nearEncoder (9 / 10)) (9 / 10)) ^ 2
        < recoveryError nearEncoder Q) ∧
    (∀ Q ∈ Matrix.orthogonalGroup (Fin 1) ℝ, 129 / 10000 ≤ recoveryError nearEncoder Q) ∧
    recoveryError nearEncoder 1 = 129 / 10000 ∧
    recoveryError nearEncoder 1 ≤
      meanSq nearEncoder + normalizedGap (traceGap nearEncoder (9 / 10)) (9 / 10) +
        (whiteningError nearEncoder +
          normalizedGap (traceGap nearEncoder (9 / 10)) (9 / 10)) ^ 2 := by
  have h1 : recoveryError nearEncoder 1 = 129 / 10000 := by
    rw [recoveryError_nearEncoder, Matrix.one_apply_eq]
    norm_num
  refine ⟨?_, ?_, fun Q => ?_, fun Q hQ => recoveryError_nearEncoder_ge hQ, h1, ?_⟩
  · rw [paperGap_nearEncoder]
    norm_num
  · rw [paperBound_nearEncoder]
    norm_num
  · rw [paperBound_nearEncoder, recoveryError_nearEncoder]
    nlinarith [sq_nonneg (99 / 100 - Q 0 0)]
  · rw [correctedBound_nearEncoder, h1]
    norm_num

/-! ## Non-vacuity: an orthogonal linear encoder meets every hypothesis, with equality

For `U ∈ O(n)` the encoder `h(z) = U z` has the coefficients `linCoeff U` (`U i j` at `e_j`). It has
mean `0`, variance `1` in every component (the hypotheses of
`approximate_identifiability_paper_form`), evaluates to `z ↦ U z`, has recovery error `0` against
`Q = U`, and both right-hand sides (paper form and corrected form) are `0`: the bound is
attained. -/

theorem frob_zero : frob (0 : Matrix (Fin n) (Fin n) ℝ) = 0 := by
  have h : ∑ i, ∑ j, (0 : Matrix (Fin n) (Fin n) ℝ) i j ^ 2 = 0 :=
    Finset.sum_eq_zero fun i _ => Finset.sum_eq_zero fun j _ => by
      rw [Matrix.zero_apply]
      ring
  rw [frob, h]
  exact Real.sqrt_zero

theorem linCoeff_of_two_le_deg (U : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) {α : Fin n →₀ ℕ}
    (hα : 2 ≤ deg α) : linCoeff U i α = 0 :=
  linCoeff_of_deg_ne_one U i (by omega)

theorem linearPart_linCoeff (U : Matrix (Fin n) (Fin n) ℝ) : linearPart (linCoeff U) = U := by
  ext i j
  rw [linearPart_apply, linCoeff_single]

theorem encoderEval_linCoeff (U : Matrix (Fin n) (Fin n) ℝ) (z : Fin n → ℝ) :
    encoderEval (linCoeff U) z = Matrix.mulVec U z := by
  rw [encoderEval_eq_mulVec (linCoeff U) (fun i => linCoeff_zero U i)
    (fun i _ hα => linCoeff_of_two_le_deg U i hα), linearPart_linCoeff]

theorem cov_linCoeff {U : Matrix (Fin n) (Fin n) ℝ} (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ) :
    cov (linCoeff U) = 1 := by
  rw [← mul_transpose_linearPart_eq_cov (linCoeff U) (fun i => linCoeff_zero U i)
    (fun i _ hα => linCoeff_of_two_le_deg U i hα), linearPart_linCoeff]
  -- `n` and `R` are explicit arguments of `Matrix.mem_orthogonalGroup_iff`
  exact (Matrix.mem_orthogonalGroup_iff (Fin n) ℝ).mp hU

theorem variance_linCoeff {U : Matrix (Fin n) (Fin n) ℝ}
    (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ) (i : Fin n) : variance (linCoeff U) i = 1 := by
  rw [variance_eq_cov_self, cov_linCoeff hU]
  exact Matrix.one_apply_eq i

theorem nonlinEnergy_linCoeff (U : Matrix (Fin n) (Fin n) ℝ) : nonlinEnergy (linCoeff U) = 0 := by
  rw [nonlinEnergy]
  refine Finset.sum_eq_zero fun i _ => Finset.sum_eq_zero fun α hα => ?_
  have h2 : 2 ≤ deg α := (Finset.mem_filter.mp hα).2
  rw [linCoeff_of_two_le_deg U i h2]
  ring

theorem meanSq_linCoeff (U : Matrix (Fin n) (Fin n) ℝ) : meanSq (linCoeff U) = 0 := by
  rw [meanSq]
  exact Finset.sum_eq_zero fun i _ => by
    rw [mean, linCoeff_zero]
    norm_num

theorem whiteningError_linCoeff {U : Matrix (Fin n) (Fin n) ℝ}
    (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ) : whiteningError (linCoeff U) = 0 := by
  rw [whiteningError, cov_linCoeff hU, sub_self]
  exact frob_zero

theorem recoveryError_linCoeff_self (U : Matrix (Fin n) (Fin n) ℝ) :
    recoveryError (linCoeff U) U = 0 := by
  have hz : frob (U - U) = 0 := by
    rw [sub_self]
    exact frob_zero
  rw [recoveryError_eq, meanSq_linCoeff, nonlinEnergy_linCoeff, linearPart_linCoeff, hz]
  ring

set_option backward.isDefEq.respectTransparency false in
/-- For an orthogonal linear encoder the alignment loss is exactly `2(1-ρ)n`, so both gaps
vanish. -/
theorem gaps_linCoeff {U : Matrix (Fin n) (Fin n) ℝ} (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ)
    {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) :
    paperGap (linCoeff U) ρ = 0 ∧ traceGap (linCoeff U) ρ = 0 := by
  have hA : alignLoss (linCoeff U) ρ = 2 * (1 - ρ) * (n : ℝ) :=
    (alignLoss_eq_iff (linCoeff U) h0 h1 (variance_linCoeff hU)).mpr
      fun i _ hα => linCoeff_of_two_le_deg U i hα
  have htr : Matrix.trace (cov (linCoeff U)) = (n : ℝ) := by
    rw [cov_linCoeff hU, Matrix.trace_one, Fintype.card_fin]
  refine ⟨?_, ?_⟩
  · rw [paperGap, hA]
    ring
  · rw [traceGap, hA, htr]
    ring

/-- **Non-vacuity of `approximate_identifiability_paper_form`.** Every orthogonal linear encoder
`h(z) = U z` (`U ∈ O(n)`) meets its hypotheses (`0 < ρ < 1` given, mean `0`, variance `1`), is the
intended object (`encoderEval (linCoeff U) z = U z`), and attains the bound with equality at
`Q = U`: recovery error `0` and right-hand side `D + (ε + D)² = 0`. -/
theorem approximate_identifiability_paper_form_witness {U : Matrix (Fin n) (Fin n) ℝ}
    (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ) {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) :
    (∀ i, mean (linCoeff U) i = 0) ∧ (∀ i, variance (linCoeff U) i = 1) ∧
      (∀ z, encoderEval (linCoeff U) z = Matrix.mulVec U z) ∧
      recoveryError (linCoeff U) U = 0 ∧
      normalizedGap (paperGap (linCoeff U) ρ) ρ +
        (whiteningError (linCoeff U) + normalizedGap (paperGap (linCoeff U) ρ) ρ) ^ 2 = 0 := by
  refine ⟨fun i => linCoeff_zero U i, variance_linCoeff hU, encoderEval_linCoeff U,
    recoveryError_linCoeff_self U, ?_⟩
  rw [(gaps_linCoeff hU h0 h1).1, whiteningError_linCoeff hU, normalizedGap, zero_div]
  ring

/-- **Non-vacuity of `approximate_identifiability`.** For an orthogonal linear encoder the
corrected right-hand side `‖μ‖² + D_tr + (ε + D_tr)²` is `0` and the recovery error against `Q = U`
is `0`: the bound is attained. (`paper_form_counterexample_pos_delta` gives a nonlinear encoder
where it holds strictly: `129/10000 ≤ 1319601/100000000`.) -/
theorem approximate_identifiability_witness {U : Matrix (Fin n) (Fin n) ℝ}
    (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ) {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) :
    recoveryError (linCoeff U) U = 0 ∧
      meanSq (linCoeff U) + normalizedGap (traceGap (linCoeff U) ρ) ρ +
        (whiteningError (linCoeff U) + normalizedGap (traceGap (linCoeff U) ρ) ρ) ^ 2 = 0 := by
  refine ⟨recoveryError_linCoeff_self U, ?_⟩
  rw [meanSq_linCoeff, (gaps_linCoeff hU h0 h1).2, whiteningError_linCoeff hU, normalizedGap,
    zero_div]
  ring

set_option backward.isDefEq.respectTransparency false in
/-- **Non-vacuity of the Procrustes bound `exists_orthogonal_frob_sub_le`.** For `U ∈ O(n)` the
right-hand side `‖UᵀU - 1‖_F` is `0`, so the lemma returns an orthogonal `Q` at distance `0`
(`Q = U`); for `h = nearEncoder` (`A = 99/100`) it is the `Q = 1` of
`paper_form_counterexample_pos_delta`. -/
theorem exists_orthogonal_frob_sub_le_witness {U : Matrix (Fin n) (Fin n) ℝ}
    (hU : U ∈ Matrix.orthogonalGroup (Fin n) ℝ) :
    frob (Uᵀ * U - 1) = 0 ∧ ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ, frob (U - Q) = 0 := by
  have h0 : frob (Uᵀ * U - 1) = 0 := by
    -- `n` and `R` are explicit arguments of `Matrix.mem_orthogonalGroup_iff'`; the equation is
    -- restated with this file's instances, so the `rw` pattern below is syntactic
    have hU' : Uᵀ * U = 1 := (Matrix.mem_orthogonalGroup_iff' (Fin n) ℝ).mp hU
    rw [hU', sub_self]
    exact frob_zero
  obtain ⟨Q, hQ, hle⟩ := exists_orthogonal_frob_sub_le U
  rw [h0] at hle
  exact ⟨h0, Q, hQ, le_antisymm hle (frob_nonneg _)⟩

end

end Lejepa.Approx
