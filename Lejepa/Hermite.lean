import Mathlib.RingTheory.Polynomial.Hermite.Basic
import Mathlib.LinearAlgebra.UnitaryGroup
import Mathlib.Topology.Algebra.InfiniteSum.ENNReal
import Mathlib.Topology.Algebra.InfiniteSum.Order
import Mathlib.Topology.Algebra.InfiniteSum.Ring

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
the alignment loss are given by the Mehler/orthogonality formulas. The Python test
`pycheck/tests/test_fidelity_hermite.py` checks by Gauss–Hermite quadrature that these formulas
equal the population moments of the evaluated encoder.

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

end

end Lejepa.Hermite
