import Mathlib

-- All of Mathlib is imported on purpose: no Lean toolchain was available where these files were
-- written, and a missing transitive import would break the build. Narrow the imports once
-- `lake build` has run.

/-!
# Theorem 4.1 (linear identifiability) in the Hermite coefficient model

Public definitions (names kept stable; `Lejepa.Approx` builds on them), all in
`Lejepa.Hermite`, for `n : ℕ`, multi-indices `α : Fin n →₀ ℕ` and an encoder given by its
Hermite coefficients `c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)` (component `i` is
`h_i = ∑_α c i α • He_α`, finitely many nonzero coefficients):

* `deg α`            : total degree `|α| = ∑ j, α j`;
* `mfact α`          : `α! = ∏ j, (α j)!` as a real number;
* `ncSupport c i`    : the nonconstant support `{α ∈ (c i).support | α ≠ 0}`;
* `covSupport c i k` : `{α ∈ (c i).support ∪ (c k).support | α ≠ 0}`;
* `mean c i`         : `c i 0`                                        (`= E h_i(z)`);
* `variance c i`     : `∑ α ∈ ncSupport c i, (c i α)^2 * mfact α`      (`= Var h_i(z)`);
* `corr c ρ i`       : `∑ α ∈ ncSupport c i, (c i α)^2 * mfact α * ρ^|α|`
                                                         (`= Cov(h_i(z), h_i(z'))`, Mehler);
* `weight c i d`     : `∑ α ∈ ncSupport c i with |α| = d, (c i α)^2 * mfact α`
                                                         (the spectral weight `w_{i,d}`);
* `cov c`            : the matrix `cov c i k = ∑ α ∈ covSupport c i k, c i α * c k α * mfact α`
                                                         (`= Cov(h_i(z), h_k(z))`);
* `alignLoss c ρ`    : `∑ i, 2 * (variance c i - corr c ρ i)`      (`= E‖h(z') - h(z)‖²`);
* `linearPart c`     : the matrix `A i j = c i (single j 1)`;
* `hermiteR k`       : Mathlib's probabilists' Hermite polynomial `Polynomial.hermite k` mapped
                       to `ℝ[X]`;
* `hermiteMulti α z` : `He_α(z) = ∏ j, (hermiteR (α j)).eval (z j)`;
* `encoderEval c z`  : the evaluated encoder `z ↦ (∑ α ∈ (c i).support, c i α * He_α(z))_i`.

## The model, and what is (not) proved here

For `z ~ N(0, Iₙ)` and the Ornstein–Uhlenbeck partner `z' = ρ z + √(1-ρ²) η`, the products
`He_α` are orthogonal with `E[He_α(z)²] = α!` and, by Mehler's formula,
`E[He_α(z) He_β(z')] = [α = β] α! ρ^|α|`. These two facts are *not* proved in this file: they
are the reason the quantities above are *defined* by the coefficient formulas. So this file works
in the coefficient model: the encoder *is* its finitely many Hermite coefficients, its moments and
the alignment loss are given by the Mehler/orthogonality formulas. `Lejepa.GaussianIdent` proves
that these formulas are the Gaussian integrals of the evaluated encoder and restates Theorem 4.1
with integrals (`linear_identifiability_gaussian`); pycheck also checks them by quadrature.

Proved here (all hypotheses are explicit arguments):

1. `tsum_mul_pow_le` / `tsum_mul_pow_eq_iff`: the spectral lemma for a weight sequence
   `w : ℕ → ℝ` (`w ≥ 0`, `w 0 = 0`, summable, `∑ w = 1`, `0 < ρ < 1`):
   `∑' d, w d * ρ^d ≤ ρ`, with equality iff `w d = 0` for every `d ≥ 2`.
   Proof: `ρ - ∑ w d ρ^d = ∑ w d (ρ - ρ^d)` is a sum of nonnegative terms.
2. `alignLoss_ge` / `alignLoss_eq_iff`: if every component has variance 1, the alignment loss is
   at least `2(1-ρ)n`, with equality iff every coefficient of degree `≥ 2` vanishes.
3. `encoderEval_eq_mulVec`: with zero means and no coefficient of degree `≥ 2`, the evaluated
   encoder is `z ↦ A z` with `A = linearPart c`.
4. `linearPart_mem_orthogonalGroup`: if moreover `cov c = 1`, then `A ∈ O(n)`.
5. `linear_identifiability`: the assembled Theorem 4.1 in this model.
6. `linear_identifiability_witness` (non-vacuity): for every orthogonal `Q`, the linear encoder
   `linearEncoder Q` meets the hypotheses of `linear_identifiability` and attains the bound with
   equality (`linear_identifiability_applies` plugs it in).

Also: `variance_eq_cov_self` (`Var_i = Cov_ii`), and the spectral form of the model
(`weight_nonneg`, `weight_zero`, `variance_eq_sum_weight`, `corr_eq_sum_weight`:
`w_{i,d} ≥ 0`, `w_{i,0} = 0`, `Var_i = ∑_d w_{i,d}`, `Corr_i = ∑_d w_{i,d} ρ^d`), which is how the
paper applies the spectral lemma; the finite bound is proved directly (`alignLoss_sub_eq`).
-/

namespace Lejepa.Hermite

noncomputable section

variable {n : ℕ}

/-! ## Definitions: the coefficient model -/

/-- The total degree `|α| = ∑ j, α j` of a multi-index. -/
def deg (α : Fin n →₀ ℕ) : ℕ := ∑ j, α j

/-- The multi-index factorial `α! = ∏ j, (α j)!`, as a real number. -/
def mfact (α : Fin n →₀ ℕ) : ℝ := ∏ j, ((α j).factorial : ℝ)

/-- The nonconstant support of component `i`: multi-indices `α ≠ 0` with `c i α ≠ 0`. -/
def ncSupport (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) : Finset (Fin n →₀ ℕ) :=
  (c i).support.filter (fun α => α ≠ 0)

/-- The multi-indices `α ≠ 0` where component `i` or component `k` has a nonzero coefficient. -/
def covSupport (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) : Finset (Fin n →₀ ℕ) :=
  ((c i).support ∪ (c k).support).filter (fun α => α ≠ 0)

/-- The mean `E h_i(z) = c i 0` (only `He_0 = 1` has nonzero mean under `N(0, I)`). -/
def mean (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) : ℝ := c i 0

/-- The variance `Var h_i(z) = ∑_{α ≠ 0} (c i α)² α!` (orthogonality of the `He_α`). -/
def variance (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) : ℝ :=
  ∑ α ∈ ncSupport c i, (c i α) ^ 2 * mfact α

/-- The lag covariance `Cov(h_i(z), h_i(z')) = ∑_{α ≠ 0} (c i α)² α! ρ^|α|` for the OU pair
(Mehler's formula). -/
def corr (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) (i : Fin n) : ℝ :=
  ∑ α ∈ ncSupport c i, (c i α) ^ 2 * mfact α * ρ ^ deg α

/-- The spectral weight `w_{i,d} = ∑_{α ≠ 0, |α| = d} (c i α)² α!`. -/
def weight (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) (d : ℕ) : ℝ :=
  ∑ α ∈ (ncSupport c i).filter (fun α => deg α = d), (c i α) ^ 2 * mfact α

/-- The covariance matrix `Cov(h_i(z), h_k(z)) = ∑_{α ≠ 0} c i α * c k α * α!`. -/
def cov (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : Matrix (Fin n) (Fin n) ℝ :=
  Matrix.of fun i k => ∑ α ∈ covSupport c i k, c i α * c k α * mfact α

/-- The alignment loss `E‖h(z') - h(z)‖² = ∑_i 2 (Var h_i - Cov(h_i(z), h_i(z')))`. -/
def alignLoss (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) : ℝ :=
  ∑ i, 2 * (variance c i - corr c ρ i)

/-- The linear part `A i j = c i (single j 1) = E[h_i(z) z_j]`. -/
def linearPart (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : Matrix (Fin n) (Fin n) ℝ :=
  Matrix.of fun i j => c i (Finsupp.single j 1)

/-- Mathlib's probabilists' Hermite polynomial `He_k` (a `Polynomial ℤ`), mapped to `ℝ[X]`. -/
def hermiteR (k : ℕ) : Polynomial ℝ :=
  (Polynomial.hermite k).map (Int.castRingHom ℝ)

/-- The multivariate Hermite function `He_α(z) = ∏ j, He_{α j}(z j)`. -/
def hermiteMulti (α : Fin n →₀ ℕ) (z : Fin n → ℝ) : ℝ :=
  ∏ j, Polynomial.eval (z j) (hermiteR (α j))

/-- The evaluated encoder `h(z)_i = ∑_α c i α * He_α(z)`. -/
def encoderEval (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (z : Fin n → ℝ) : Fin n → ℝ :=
  fun i => ∑ α ∈ (c i).support, c i α * hermiteMulti α z


/-- The finite set `{single j 1 | j}` of the degree-one multi-indices. -/
def singles (n : ℕ) : Finset (Fin n →₀ ℕ) :=
  Finset.univ.image (fun j : Fin n => Finsupp.single j 1)

/-- Entries of the covariance matrix (definitional). -/
theorem cov_apply (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    cov c i k = ∑ α ∈ covSupport c i k, c i α * c k α * mfact α :=
  rfl

/-- Entries of the linear part (definitional): `A i j = c i (single j 1)`. -/
theorem linearPart_apply (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i j : Fin n) :
    linearPart c i j = c i (Finsupp.single j 1) :=
  rfl

/-- The evaluated encoder, componentwise (definitional). -/
theorem encoderEval_apply (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (z : Fin n → ℝ) (i : Fin n) :
    encoderEval c z i = ∑ α ∈ (c i).support, c i α * hermiteMulti α z :=
  rfl

/-! ## 1. The spectral lemma (infinite weight sequences) -/

section Spectral

variable {w : ℕ → ℝ} {ρ : ℝ}

/-- Each term `w d * (ρ - ρ ^ d)` is nonnegative when `w ≥ 0`, `w 0 = 0` and `0 ≤ ρ ≤ 1`. -/
theorem weight_mul_sub_pow_nonneg (hw : ∀ d, 0 ≤ w d) (hw0 : w 0 = 0) (hρ0 : 0 ≤ ρ)
    (hρ1 : ρ ≤ 1) (d : ℕ) : 0 ≤ w d * (ρ - ρ ^ d) := by
  rcases Nat.eq_zero_or_pos d with hd | hd
  · exact le_of_eq (by rw [hd, hw0, zero_mul])
  · exact mul_nonneg (hw d) (sub_nonneg.mpr (pow_le_of_le_one hρ0 hρ1 hd.ne'))

/-- `d ↦ w d * ρ ^ d` is summable when `w` is summable and nonnegative and `0 ≤ ρ ≤ 1`. -/
theorem summable_mul_pow (hw : ∀ d, 0 ≤ w d) (hs : Summable w) (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1) :
    Summable (fun d => w d * ρ ^ d) :=
  Summable.of_nonneg_of_le (fun d => mul_nonneg (hw d) (pow_nonneg hρ0 d))
    (fun d => mul_le_of_le_one_right (hw d) (pow_le_one₀ hρ0 hρ1)) hs

/-- With `∑ w = 1`: `ρ - ∑' d, w d * ρ ^ d` is the sum of the series `w d * (ρ - ρ ^ d)`. -/
theorem hasSum_mul_sub_pow (hs : Summable w) (hsum : ∑' d, w d = 1)
    (hsρ : Summable (fun d => w d * ρ ^ d)) :
    HasSum (fun d => w d * (ρ - ρ ^ d)) (ρ - ∑' d, w d * ρ ^ d) := by
  have h1 : HasSum (fun d => ρ * w d) (ρ * ∑' d, w d) := hs.hasSum.mul_left ρ
  rw [hsum, mul_one] at h1
  have h2 : HasSum (fun d => ρ * w d - w d * ρ ^ d) (ρ - ∑' d, w d * ρ ^ d) :=
    h1.sub hsρ.hasSum
  have hfun : (fun d => w d * (ρ - ρ ^ d)) = (fun d => ρ * w d - w d * ρ ^ d) := by
    funext d
    ring
  rw [hfun]
  exact h2

/-- **Spectral lemma, bound.** For a weight sequence `w ≥ 0` with `w 0 = 0` and `∑ w = 1`,
and `0 < ρ < 1`: `∑' d, w d * ρ ^ d ≤ ρ`. -/
theorem tsum_mul_pow_le (hw : ∀ d, 0 ≤ w d) (hw0 : w 0 = 0) (hs : Summable w)
    (hsum : ∑' d, w d = 1) (hρ0 : 0 < ρ) (hρ1 : ρ < 1) : ∑' d, w d * ρ ^ d ≤ ρ := by
  have h := hasSum_mul_sub_pow hs hsum (summable_mul_pow hw hs hρ0.le hρ1.le)
  have h0 : (0 : ℝ) ≤ ρ - ∑' d, w d * ρ ^ d :=
    hasSum_le (fun d => weight_mul_sub_pow_nonneg hw hw0 hρ0.le hρ1.le d) hasSum_zero h
  linarith

/-- **Spectral lemma, equality case.** Under the same hypotheses,
`∑' d, w d * ρ ^ d = ρ` iff `w d = 0` for every `d ≥ 2` (all weight on degree one). -/
theorem tsum_mul_pow_eq_iff (hw : ∀ d, 0 ≤ w d) (hw0 : w 0 = 0) (hs : Summable w)
    (hsum : ∑' d, w d = 1) (hρ0 : 0 < ρ) (hρ1 : ρ < 1) :
    ∑' d, w d * ρ ^ d = ρ ↔ ∀ d, 2 ≤ d → w d = 0 := by
  have h := hasSum_mul_sub_pow hs hsum (summable_mul_pow hw hs hρ0.le hρ1.le)
  have hnn : ∀ d, 0 ≤ w d * (ρ - ρ ^ d) := weight_mul_sub_pow_nonneg hw hw0 hρ0.le hρ1.le
  constructor
  · intro heq d hd
    rw [heq, sub_self] at h
    -- the summation filter is named, so that the instances `[L.LeAtTop] [L.NeBot]` are solved
    -- at once rather than postponed until `.mp h` fixes `L`
    have hz : (fun d => w d * (ρ - ρ ^ d)) = 0 :=
      (hasSum_zero_iff_of_nonneg (L := SummationFilter.unconditional ℕ) hnn).mp h
    have hzd : w d * (ρ - ρ ^ d) = 0 := congrFun hz d
    have hpos : 0 < ρ - ρ ^ d := sub_pos.mpr (pow_lt_self_of_lt_one₀ hρ0 hρ1 (by omega))
    rcases mul_eq_zero.mp hzd with h1 | h1
    · exact h1
    · exact absurd h1 hpos.ne'
  · intro hw2
    have hall : ∀ d, w d * (ρ - ρ ^ d) = 0 := by
      intro d
      rcases Nat.lt_or_ge d 2 with hd | hd
      · rcases Nat.lt_or_ge d 1 with hd1 | hd1
        · have hd0 : d = 0 := by omega
          rw [hd0, hw0, zero_mul]
        · have hd1' : d = 1 := by omega
          rw [hd1', pow_one, sub_self, mul_zero]
      · rw [hw2 d hd, zero_mul]
    have hz : (fun d => w d * (ρ - ρ ^ d)) = 0 := by
      funext d
      exact hall d
    have h0 : HasSum (fun d => w d * (ρ - ρ ^ d)) 0 :=
      (hasSum_zero_iff_of_nonneg (L := SummationFilter.unconditional ℕ) hnn).mpr hz
    have huniq : ρ - ∑' d, w d * ρ ^ d = 0 := h.unique h0
    linarith

end Spectral

/-! ## 2. Multi-indices: degree, factorial, degree one -/

section MultiIndex

theorem deg_zero : deg (0 : Fin n →₀ ℕ) = 0 := by
  unfold deg
  exact Finset.sum_eq_zero (fun j _ => Finsupp.zero_apply)

theorem deg_ne_zero {α : Fin n →₀ ℕ} (hα : α ≠ 0) : deg α ≠ 0 := by
  intro h
  apply hα
  have h' : ∑ j, α j = 0 := h
  -- a sum of nonnegative terms vanishes iff every term does
  have hnn : ∀ j ∈ (Finset.univ : Finset (Fin n)), 0 ≤ α j := fun j _ => Nat.zero_le (α j)
  have hall : ∀ j ∈ (Finset.univ : Finset (Fin n)), α j = 0 :=
    (Finset.sum_eq_zero_iff_of_nonneg hnn).mp h'
  exact Finsupp.ext (fun j => by rw [Finsupp.zero_apply]; exact hall j (Finset.mem_univ j))

/-- A multi-index of total degree one is some `single j 1`. -/
theorem exists_eq_single_of_deg_eq_one {α : Fin n →₀ ℕ} (h : deg α = 1) :
    ∃ j, α = Finsupp.single j 1 := by
  have h' : ∑ x, α x = 1 := h
  have hne : ∑ x, α x ≠ 0 := by
    rw [h']
    exact one_ne_zero
  obtain ⟨j, -, hj⟩ := Finset.exists_ne_zero_of_sum_ne_zero hne
  have hj' : α j ≠ 0 := hj
  have hsplit : α j + ∑ x ∈ Finset.univ.erase j, α x = ∑ x, α x :=
    Finset.add_sum_erase Finset.univ (fun x => α x) (Finset.mem_univ j)
  refine ⟨j, Finsupp.ext (fun k => ?_)⟩
  by_cases hk : k = j
  · rw [hk, Finsupp.single_eq_same]
    -- restate with the literal `(1 : ℕ)` (`instOfNatNat`), definitionally the rewritten goal, so
    -- that `omega` sees a plain numeral whatever instance path the `Finsupp` value carried
    show α j = (1 : ℕ)
    omega
  · rw [Finsupp.single_eq_of_ne hk]
    -- the `0` produced by `single_eq_of_ne` is `Zero.toOfNat0`; restate it as the literal
    -- `(0 : ℕ)` (definitionally equal) before `omega`
    show α k = (0 : ℕ)
    have hk' : α k ≤ ∑ x ∈ Finset.univ.erase j, α x :=
      Finset.single_le_sum_of_canonicallyOrdered (f := fun x => α x)
        (Finset.mem_erase.mpr ⟨hk, Finset.mem_univ k⟩)
    omega

theorem mfact_pos (α : Fin n →₀ ℕ) : 0 < mfact α := by
  unfold mfact
  exact Finset.prod_pos (fun j _ => Nat.cast_pos.mpr (Nat.factorial_pos (α j)))

theorem mfact_single (j : Fin n) : mfact (Finsupp.single j 1) = 1 := by
  unfold mfact
  apply Finset.prod_eq_one
  intro k _
  by_cases hk : k = j
  · rw [hk, Finsupp.single_eq_same, Nat.factorial_one, Nat.cast_one]
  · -- state the value with the literal `0 : ℕ`, so that `Nat.factorial_zero` matches syntactically
    have h0 : (Finsupp.single j 1 : Fin n →₀ ℕ) k = 0 := Finsupp.single_eq_of_ne hk
    rw [h0, Nat.factorial_zero, Nat.cast_one]

theorem mem_singles (j : Fin n) : (Finsupp.single j 1 : Fin n →₀ ℕ) ∈ singles n := by
  unfold singles
  exact Finset.mem_image.mpr ⟨j, Finset.mem_univ j, rfl⟩

/-- A sum over a finite set `s` of multi-indices, of a function that vanishes off `s` and off the
degree-one multi-indices, is the sum over the `n` degree-one multi-indices. -/
theorem sum_eq_sum_single (s : Finset (Fin n →₀ ℕ)) (f : (Fin n →₀ ℕ) → ℝ)
    (hout : ∀ α, α ∉ s → f α = 0) (hlin : ∀ α, f α ≠ 0 → ∃ j, α = Finsupp.single j 1) :
    ∑ α ∈ s, f α = ∑ j, f (Finsupp.single j 1) := by
  have h1 : ∑ α ∈ s, f α = ∑ α ∈ s ∪ singles n, f α :=
    Finset.sum_subset Finset.subset_union_left (fun α _ hα => hout α hα)
  have h2 : ∑ α ∈ singles n, f α = ∑ α ∈ s ∪ singles n, f α := by
    refine Finset.sum_subset Finset.subset_union_right (fun α _ hα => ?_)
    by_contra hne
    obtain ⟨j, rfl⟩ := hlin α hne
    exact hα (mem_singles j)
  have h3 : ∑ α ∈ singles n, f α = ∑ j, f (Finsupp.single j 1) := by
    unfold singles
    have hinj : Set.InjOn (fun j : Fin n => (Finsupp.single j 1 : Fin n →₀ ℕ))
        (Finset.univ : Finset (Fin n)) := by
      intro j _ k _ hjk
      exact Finsupp.single_left_injective (one_ne_zero : (1 : ℕ) ≠ 0) hjk
    exact Finset.sum_image hinj
  rw [h1, ← h2, h3]

end MultiIndex

/-! ## 3. The loss bound and its equality case (finite spectral lemma) -/

section Loss

variable (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ))

theorem mem_ncSupport {i : Fin n} {α : Fin n →₀ ℕ} :
    α ∈ ncSupport c i ↔ c i α ≠ 0 ∧ α ≠ 0 := by
  unfold ncSupport
  rw [Finset.mem_filter, Finsupp.mem_support_iff]

theorem mem_covSupport {i k : Fin n} {α : Fin n →₀ ℕ} :
    α ∈ covSupport c i k ↔ α ∈ (c i).support ∪ (c k).support ∧ α ≠ 0 := by
  unfold covSupport
  rw [Finset.mem_filter]

/-- The variance is the diagonal of the covariance matrix. -/
theorem variance_eq_cov_self (i : Fin n) : variance c i = cov c i i := by
  rw [cov_apply]
  unfold variance covSupport ncSupport
  rw [Finset.union_self]
  refine Finset.sum_congr rfl (fun α _ => ?_)
  ring

/-- The spectral weights are nonnegative. -/
theorem weight_nonneg (i : Fin n) (d : ℕ) : 0 ≤ weight c i d := by
  unfold weight
  exact Finset.sum_nonneg (fun α _ => mul_nonneg (sq_nonneg _) (mfact_pos α).le)

/-- No spectral weight sits on degree zero (`w_{i,0} = 0`). -/
theorem weight_zero (i : Fin n) : weight c i 0 = 0 := by
  unfold weight
  refine Finset.sum_eq_zero (fun α hα => ?_)
  have h1 := Finset.mem_filter.mp hα
  exact absurd h1.2 (deg_ne_zero ((mem_ncSupport c).mp h1.1).2)

/-- The lag covariance in spectral form: `Corr_i(ρ) = ∑_d w_{i,d} ρ^d` (finite sum over the
degrees that occur). -/
theorem corr_eq_sum_weight (ρ : ℝ) (i : Fin n) :
    corr c ρ i = ∑ d ∈ (ncSupport c i).image deg, weight c i d * ρ ^ d := by
  unfold corr weight
  -- the fibre decomposition, with the summand given explicitly and the statement written out
  -- (so that the rewritten goal contains no beta-redex from the lemma's `f i`)
  have hfib : ∑ d ∈ (ncSupport c i).image deg,
        ∑ α ∈ (ncSupport c i).filter (fun α => deg α = d), (c i α) ^ 2 * mfact α * ρ ^ deg α =
      ∑ α ∈ ncSupport c i, (c i α) ^ 2 * mfact α * ρ ^ deg α :=
    Finset.sum_fiberwise_of_maps_to (g := deg) (t := (ncSupport c i).image deg)
      (fun α (hα : α ∈ ncSupport c i) => Finset.mem_image_of_mem deg hα)
      (fun α => (c i α) ^ 2 * mfact α * ρ ^ deg α)
  rw [← hfib]
  refine Finset.sum_congr rfl (fun d _ => ?_)
  rw [Finset.sum_mul]
  refine Finset.sum_congr rfl (fun α hα => ?_)
  -- `exact` (default transparency), not a closing `rw … rfl`: the right side's outer `*` comes
  -- from `Finset.sum_mul` (`NonUnitalNonAssocSemiring` path), the left side's is `Real.instMul`
  exact congrArg (fun e : ℕ => c i α ^ 2 * mfact α * ρ ^ e) (Finset.mem_filter.mp hα).2

/-- The variance in spectral form: `Var_i = ∑_d w_{i,d}`. -/
theorem variance_eq_sum_weight (i : Fin n) :
    variance c i = ∑ d ∈ (ncSupport c i).image deg, weight c i d := by
  unfold variance weight
  exact (Finset.sum_fiberwise_of_maps_to (g := deg) (t := (ncSupport c i).image deg)
    (fun α (hα : α ∈ ncSupport c i) => Finset.mem_image_of_mem deg hα)
    (fun α => (c i α) ^ 2 * mfact α)).symm

/-- `∑ᵢ x = n x` over `Fin n`, with the cast `(n : ℝ)` as elaborated here: the cast produced by
`nsmul_eq_mul` (through `NonAssocSemiring`) is matched to ours by `exact` at default transparency,
so that `ring` later sees a single cast atom. -/
theorem sum_const_fin (x : ℝ) : ∑ _i : Fin n, x = (n : ℝ) * x := by
  rw [Finset.sum_const, Finset.card_fin]
  exact nsmul_eq_mul n x

/-- The per-component gap: `∑_{α ≠ 0} 2 c² α! (ρ - ρ^|α|) = 2ρ Var_i - 2 Corr_i`. -/
theorem sum_gap_eq (ρ : ℝ) (i : Fin n) :
    ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α)
      = 2 * ρ * variance c i - 2 * corr c ρ i := by
  unfold variance corr
  rw [Finset.mul_sum, Finset.mul_sum, ← Finset.sum_sub_distrib]
  refine Finset.sum_congr rfl (fun α _ => ?_)
  ring

/-- With unit variances, the excess loss is a double sum of the per-coefficient gaps. -/
theorem alignLoss_sub_eq (ρ : ℝ) (hvar : ∀ i, variance c i = 1) :
    alignLoss c ρ - 2 * (1 - ρ) * (n : ℝ)
      = ∑ i, ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) := by
  calc alignLoss c ρ - 2 * (1 - ρ) * (n : ℝ)
      = ∑ i, (2 * (variance c i - corr c ρ i) - 2 * (1 - ρ)) := by
        have hs : ∑ i, (2 * (variance c i - corr c ρ i) - 2 * (1 - ρ)) =
            alignLoss c ρ - ∑ _i : Fin n, 2 * (1 - ρ) := Finset.sum_sub_distrib _ _
        rw [hs, sum_const_fin (2 * (1 - ρ))]
        ring
    _ = ∑ i, ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) := by
        refine Finset.sum_congr rfl (fun i _ => ?_)
        rw [sum_gap_eq, hvar i]
        ring

theorem gap_term_nonneg {ρ : ℝ} (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1) (i : Fin n) {α : Fin n →₀ ℕ}
    (hα : α ∈ ncSupport c i) : 0 ≤ 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) := by
  have hd : deg α ≠ 0 := deg_ne_zero ((mem_ncSupport c).mp hα).2
  have h1 : ρ ^ deg α ≤ ρ := pow_le_of_le_one hρ0 hρ1 hd
  have h4 : 0 ≤ ρ - ρ ^ deg α := sub_nonneg.mpr h1
  exact mul_nonneg (mul_nonneg (mul_nonneg zero_le_two (sq_nonneg _)) (mfact_pos α).le) h4

/-- **Loss bound.** If every component has variance 1 and `0 ≤ ρ ≤ 1`, the alignment loss is at
least `2(1-ρ)n`. -/
theorem alignLoss_ge {ρ : ℝ} (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1) (hvar : ∀ i, variance c i = 1) :
    2 * (1 - ρ) * (n : ℝ) ≤ alignLoss c ρ := by
  have h := alignLoss_sub_eq c ρ hvar
  have hnn : 0 ≤ ∑ i, ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) :=
    Finset.sum_nonneg (fun i _ => Finset.sum_nonneg (fun α hα => gap_term_nonneg c hρ0 hρ1 i hα))
  linarith

/-- **Equality case.** If every component has variance 1 and `0 < ρ < 1`, the alignment loss
equals `2(1-ρ)n` iff every Hermite coefficient of total degree `≥ 2` vanishes. -/
theorem alignLoss_eq_iff {ρ : ℝ} (hρ0 : 0 < ρ) (hρ1 : ρ < 1) (hvar : ∀ i, variance c i = 1) :
    alignLoss c ρ = 2 * (1 - ρ) * (n : ℝ) ↔ ∀ i α, 2 ≤ deg α → c i α = 0 := by
  have h := alignLoss_sub_eq c ρ hvar
  have hnn : ∀ i, ∀ α ∈ ncSupport c i, 0 ≤ 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) :=
    fun i α hα => gap_term_nonneg c hρ0.le hρ1.le i hα
  have hnn' : ∀ i ∈ (Finset.univ : Finset (Fin n)),
      0 ≤ ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) :=
    fun i _ => Finset.sum_nonneg (hnn i)
  constructor
  · intro heq i α hα
    by_contra hc
    have hα0 : α ≠ 0 := by
      rintro rfl
      rw [deg_zero] at hα
      omega
    have hmem : α ∈ ncSupport c i := (mem_ncSupport c).mpr ⟨hc, hα0⟩
    have hT : ∑ i, ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) = 0 := by
      linarith
    have hi : ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) = 0 :=
      (Finset.sum_eq_zero_iff_of_nonneg hnn').mp hT i (Finset.mem_univ i)
    have hiα : 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) = 0 :=
      (Finset.sum_eq_zero_iff_of_nonneg (hnn i)).mp hi α hmem
    have hc2 : 0 < (c i α) ^ 2 := sq_pos_of_ne_zero hc
    have hsub : 0 < ρ - ρ ^ deg α :=
      sub_pos.mpr (pow_lt_self_of_lt_one₀ hρ0 hρ1 (by omega))
    have hpos : 0 < 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) :=
      mul_pos (mul_pos (mul_pos two_pos hc2) (mfact_pos α)) hsub
    linarith
  · intro h2
    have hT : ∑ i, ∑ α ∈ ncSupport c i, 2 * (c i α) ^ 2 * mfact α * (ρ - ρ ^ deg α) = 0 := by
      refine Finset.sum_eq_zero (fun i _ => Finset.sum_eq_zero (fun α hα => ?_))
      have hd0 : deg α ≠ 0 := deg_ne_zero ((mem_ncSupport c).mp hα).2
      rcases Nat.lt_or_ge (deg α) 2 with hd | hd
      · have hd1 : deg α = 1 := by omega
        rw [hd1, pow_one, sub_self, mul_zero]
      · rw [h2 i α hd]
        ring
    linarith

end Loss

/-! ## 4. Evaluation: without degree `≥ 2` coefficients the encoder is linear -/

section Evaluation

theorem eval_hermiteR_zero (x : ℝ) : Polynomial.eval x (hermiteR 0) = 1 := by
  unfold hermiteR
  rw [Polynomial.hermite_zero, Polynomial.map_C, Polynomial.eval_C, map_one]

theorem eval_hermiteR_one (x : ℝ) : Polynomial.eval x (hermiteR 1) = x := by
  unfold hermiteR
  rw [Polynomial.hermite_one, Polynomial.map_X, Polynomial.eval_X]

/-- `He_{e_j}(z) = z j`. -/
theorem hermiteMulti_single (j : Fin n) (z : Fin n → ℝ) :
    hermiteMulti (Finsupp.single j 1) z = z j := by
  have hk : ∀ k, k ≠ j →
      Polynomial.eval (z k) (hermiteR ((Finsupp.single j 1 : Fin n →₀ ℕ) k)) = 1 := by
    intro k hk
    -- the literal `0 : ℕ`, so that `eval_hermiteR_zero` matches syntactically
    have h0 : (Finsupp.single j 1 : Fin n →₀ ℕ) k = 0 := Finsupp.single_eq_of_ne hk
    rw [h0, eval_hermiteR_zero]
  unfold hermiteMulti
  rw [Fintype.prod_eq_single j hk, Finsupp.single_eq_same, eval_hermiteR_one]

variable (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ))

/-- With zero mean and no coefficient of degree `≥ 2`, a nonzero coefficient sits at some
`single j 1`. -/
theorem exists_eq_single_of_ne_zero {i : Fin n} (h0 : c i 0 = 0)
    (h2 : ∀ α, 2 ≤ deg α → c i α = 0) {α : Fin n →₀ ℕ} (hα : c i α ≠ 0) :
    ∃ j, α = Finsupp.single j 1 := by
  apply exists_eq_single_of_deg_eq_one
  have hne : α ≠ 0 := by
    rintro rfl
    exact hα h0
  have hd0 : deg α ≠ 0 := deg_ne_zero hne
  have hd2 : ¬ 2 ≤ deg α := fun hd => hα (h2 α hd)
  omega

/-- **Linear evaluation.** If every component has zero mean and every coefficient of degree `≥ 2`
vanishes, the evaluated encoder is `z ↦ A z` with `A = linearPart c`. -/
theorem encoderEval_eq_mulVec (h0 : ∀ i, c i 0 = 0) (h2 : ∀ i α, 2 ≤ deg α → c i α = 0)
    (z : Fin n → ℝ) : encoderEval c z = Matrix.mulVec (linearPart c) z := by
  funext i
  have h : ∑ α ∈ (c i).support, c i α * hermiteMulti α z
      = ∑ j, c i (Finsupp.single j 1) * hermiteMulti (Finsupp.single j 1) z := by
    apply sum_eq_sum_single
    · intro α hα
      rw [Finsupp.notMem_support_iff.mp hα, zero_mul]
    · intro α hα
      exact exists_eq_single_of_ne_zero c (h0 i) (h2 i) (left_ne_zero_of_mul hα)
  have hL : Matrix.mulVec (linearPart c) z i = ∑ j, linearPart c i j * z j := rfl
  rw [encoderEval_apply, hL, h]
  refine Finset.sum_congr rfl (fun j _ => ?_)
  rw [hermiteMulti_single, linearPart_apply]

/-! ## 5. Orthogonality -/

/-- Without degree `≥ 2` coefficients and with zero means, `Cov = A Aᵀ`. -/
theorem mul_transpose_linearPart_eq_cov (h0 : ∀ i, c i 0 = 0)
    (h2 : ∀ i α, 2 ≤ deg α → c i α = 0) :
    linearPart c * (linearPart c).transpose = cov c := by
  refine Matrix.ext (fun i k => ?_)
  have h : ∑ α ∈ covSupport c i k, c i α * c k α * mfact α
      = ∑ j, c i (Finsupp.single j 1) * c k (Finsupp.single j 1)
          * mfact (Finsupp.single j 1) := by
    apply sum_eq_sum_single
    · intro α hα
      by_cases hα0 : α = 0
      · rw [hα0, h0 i]
        ring
      · have hi : α ∉ (c i).support := by
          intro hmem
          exact hα ((mem_covSupport c).mpr ⟨Finset.mem_union.mpr (Or.inl hmem), hα0⟩)
        rw [Finsupp.notMem_support_iff.mp hi]
        ring
    · intro α hα
      exact exists_eq_single_of_ne_zero c (h0 i) (h2 i)
        (left_ne_zero_of_mul (left_ne_zero_of_mul hα))
  rw [Matrix.mul_apply, cov_apply, h]
  refine Finset.sum_congr rfl (fun j _ => ?_)
  rw [mfact_single, mul_one, Matrix.transpose_apply, linearPart_apply, linearPart_apply]

/-- **Orthogonality.** With zero means, no coefficient of degree `≥ 2`, and `Cov = I`, the linear
part is orthogonal. -/
theorem linearPart_mem_orthogonalGroup (h0 : ∀ i, c i 0 = 0)
    (h2 : ∀ i α, 2 ≤ deg α → c i α = 0) (hcov : cov c = 1) :
    linearPart c ∈ Matrix.orthogonalGroup (Fin n) ℝ := by
  rw [Matrix.mem_orthogonalGroup_iff (Fin n) ℝ]
  exact (mul_transpose_linearPart_eq_cov c h0 h2).trans hcov

end Evaluation

/-! ## 6. Theorem 4.1 in the coefficient model -/

/-- **Theorem 4.1 (linear identifiability), coefficient model.**

Paper (Thm 4.1): for a Gaussian world `z ~ N(0, Iₙ)` with OU pairs `z' = ρ z + √(1-ρ²) η`,
`0 < ρ < 1`, an encoder `h` that minimises `E‖h(z') - h(z)‖²` subject to `h(z) ~ N(0, Iₙ)`
satisfies `h(z) = Q z` with `Q ∈ O(n)`.

What is proved here: for an encoder given by finitely many Hermite coefficients
`c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)`, with zero means (`mean c i = 0`) and identity covariance
(`cov c = 1`, which gives unit variances by `variance_eq_cov_self`), and `0 < ρ < 1`:
(a) the alignment loss is at least `2(1-ρ)n`; (b) if it equals `2(1-ρ)n`, there is
`Q ∈ Matrix.orthogonalGroup (Fin n) ℝ` with `encoderEval c z = Q z` for every `z`.

Differences from the paper: the moments are *defined* by the orthogonality/Mehler formulas (an
integral form: `Lejepa.GaussianIdent.linear_identifiability_gaussian`; neither treats encoders with
infinitely many nonzero coefficients, i.e. general `L²` encoders); the constraint
`h(z) ~ N(0, I)` is replaced by its first two moments (mean 0, covariance `I`), which is all the
argument uses; "minimiser" is replaced by "attains the lower bound `2(1-ρ)n`" (which (a) shows is a
lower bound; it is attained by every orthogonal linear encoder). -/
theorem linear_identifiability (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ : ℝ} (hρ0 : 0 < ρ)
    (hρ1 : ρ < 1) (hmean : ∀ i, mean c i = 0) (hcov : cov c = 1) :
    2 * (1 - ρ) * (n : ℝ) ≤ alignLoss c ρ ∧
      (alignLoss c ρ = 2 * (1 - ρ) * (n : ℝ) →
        ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ,
          ∀ z : Fin n → ℝ, encoderEval c z = Matrix.mulVec Q z) := by
  have hvar : ∀ i, variance c i = 1 := by
    intro i
    rw [variance_eq_cov_self, hcov, Matrix.one_apply_eq]
  refine ⟨alignLoss_ge c hρ0.le hρ1.le hvar, fun heq => ?_⟩
  have h2 : ∀ i α, 2 ≤ deg α → c i α = 0 := (alignLoss_eq_iff c hρ0 hρ1 hvar).mp heq
  have h0 : ∀ i, c i 0 = 0 := hmean
  exact ⟨linearPart c, linearPart_mem_orthogonalGroup c h0 h2 hcov,
    encoderEval_eq_mulVec c h0 h2⟩

/-! ## 7. Non-vacuity: an orthogonal linear encoder meets every hypothesis -/

section Witness

/-- The coefficient model of the linear encoder `z ↦ Q z`: component `i` has the coefficient
`Q i j` at `single j 1` (`He_{e_j}(z) = z j`) and no other nonzero coefficient. -/
def linearEncoder (Q : Matrix (Fin n) (Fin n) ℝ) : Fin n → ((Fin n →₀ ℕ) →₀ ℝ) :=
  fun i => ∑ j, Finsupp.single (Finsupp.single j 1) (Q i j)

theorem linearEncoder_apply (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) (α : Fin n →₀ ℕ) :
    linearEncoder Q i α =
      ∑ j, (Finsupp.single (Finsupp.single j 1) (Q i j) : (Fin n →₀ ℕ) →₀ ℝ) α :=
  Finsupp.finsetSum_apply Finset.univ
    (fun j => (Finsupp.single (Finsupp.single j 1) (Q i j) : (Fin n →₀ ℕ) →₀ ℝ)) α

/-- `linearEncoder Q i (single k 1) = Q i k`. -/
theorem linearEncoder_apply_single (Q : Matrix (Fin n) (Fin n) ℝ) (i k : Fin n) :
    linearEncoder Q i (Finsupp.single k 1) = Q i k := by
  have hoff : ∀ j ∈ (Finset.univ : Finset (Fin n)), j ≠ k →
      (Finsupp.single (Finsupp.single j 1) (Q i j) : (Fin n →₀ ℕ) →₀ ℝ)
        (Finsupp.single k 1) = 0 := by
    intro j _ hjk
    exact Finsupp.single_eq_of_ne (fun h =>
      hjk (Finsupp.single_left_injective (one_ne_zero : (1 : ℕ) ≠ 0) h).symm)
  rw [linearEncoder_apply, Finset.sum_eq_single k hoff (fun hk => absurd (Finset.mem_univ k) hk),
    Finsupp.single_eq_same]

/-- Off the degree-one multi-indices `linearEncoder Q` has no coefficient. -/
theorem linearEncoder_apply_of_forall_ne (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n)
    {α : Fin n →₀ ℕ} (hα : ∀ j, Finsupp.single j 1 ≠ α) : linearEncoder Q i α = 0 := by
  rw [linearEncoder_apply]
  exact Finset.sum_eq_zero (fun j _ => Finsupp.single_eq_of_ne (fun h => hα j h.symm))

/-- `|e_j| = 1`. -/
theorem deg_single_one (j : Fin n) : deg (Finsupp.single j 1 : Fin n →₀ ℕ) = 1 := by
  have h : ∀ k, k ≠ j → (Finsupp.single j 1 : Fin n →₀ ℕ) k = 0 :=
    fun k hk => Finsupp.single_eq_of_ne hk
  unfold deg
  rw [Fintype.sum_eq_single j h, Finsupp.single_eq_same]

theorem linearEncoder_zero (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) :
    linearEncoder Q i 0 = 0 :=
  linearEncoder_apply_of_forall_ne Q i
    (fun _ => Finsupp.single_ne_zero.mpr (one_ne_zero : (1 : ℕ) ≠ 0))

theorem linearEncoder_deg_ge_two (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n)
    (α : Fin n →₀ ℕ) (hα : 2 ≤ deg α) : linearEncoder Q i α = 0 := by
  refine linearEncoder_apply_of_forall_ne Q i (fun j hj => ?_)
  rw [← hj, deg_single_one] at hα
  omega

theorem linearPart_linearEncoder (Q : Matrix (Fin n) (Fin n) ℝ) :
    linearPart (linearEncoder Q) = Q :=
  Matrix.ext fun i j => linearEncoder_apply_single Q i j

/-- **Non-vacuity of `linear_identifiability`.** For every orthogonal `Q` and `0 < ρ < 1`, the
linear encoder `z ↦ Q z` (`linearEncoder Q`) has zero means and identity covariance (the two
hypotheses of `linear_identifiability`), attains the loss bound with equality
(`alignLoss = 2(1-ρ)n`, the hypothesis of the second conclusion), and evaluates to `z ↦ Q z`. -/
theorem linear_identifiability_witness (Q : Matrix (Fin n) (Fin n) ℝ)
    (hQ : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ) {ρ : ℝ} (hρ0 : 0 < ρ) (hρ1 : ρ < 1) :
    (∀ i, mean (linearEncoder Q) i = 0) ∧ cov (linearEncoder Q) = 1 ∧
      alignLoss (linearEncoder Q) ρ = 2 * (1 - ρ) * (n : ℝ) ∧
      ∀ z : Fin n → ℝ, encoderEval (linearEncoder Q) z = Matrix.mulVec Q z := by
  have h0 : ∀ i, linearEncoder Q i 0 = 0 := linearEncoder_zero Q
  have h2 : ∀ i α, 2 ≤ deg α → linearEncoder Q i α = 0 := linearEncoder_deg_ge_two Q
  have hlin : linearPart (linearEncoder Q) = Q := linearPart_linearEncoder Q
  have hcov : cov (linearEncoder Q) = 1 := by
    rw [← mul_transpose_linearPart_eq_cov (linearEncoder Q) h0 h2, hlin]
    -- `n` and `R` are explicit binders of `Matrix.mem_orthogonalGroup_iff` (`variable (n) (R …)`)
    exact (Matrix.mem_orthogonalGroup_iff (Fin n) ℝ).mp hQ
  have hvar : ∀ i, variance (linearEncoder Q) i = 1 := by
    intro i
    rw [variance_eq_cov_self, hcov, Matrix.one_apply_eq]
  refine ⟨h0, hcov, (alignLoss_eq_iff (linearEncoder Q) hρ0 hρ1 hvar).mpr h2, fun z => ?_⟩
  rw [encoderEval_eq_mulVec (linearEncoder Q) h0 h2 z, hlin]

/-- The witness plugged into `linear_identifiability`: both of its conclusions are reached. -/
theorem linear_identifiability_applies (Q : Matrix (Fin n) (Fin n) ℝ)
    (hQ : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ) {ρ : ℝ} (hρ0 : 0 < ρ) (hρ1 : ρ < 1) :
    ∃ Q' ∈ Matrix.orthogonalGroup (Fin n) ℝ,
      ∀ z : Fin n → ℝ, encoderEval (linearEncoder Q) z = Matrix.mulVec Q' z := by
  obtain ⟨hm, hc, hl, -⟩ := linear_identifiability_witness Q hQ hρ0 hρ1
  exact (linear_identifiability (linearEncoder Q) hρ0 hρ1 hm hc).2 hl

end Witness

end

end Lejepa.Hermite
