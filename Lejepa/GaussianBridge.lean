import Lejepa.Hermite
import Lejepa.Gaussian

/-!
# Bridge: the Hermite products of the coefficient model under `N(0, Iₙ)`

`Lejepa.Hermite` evaluates an encoder through `hermiteMulti α z = ∏_j He_{α j}(z j)` (with
`α : Fin n →₀ ℕ`) and *defines* its moments by `E[He_α He_β] = [α = β] α!` (`mfact`) and
`E[He_α(z) He_β(z')] = [α = β] α! ρ^|α|` (`deg`). This module states those two formulas for
`hermiteMulti`, `mfact` and `deg` themselves, as integrals under
`Measure.pi (fun _ => gaussianReal 0 1)`, by reduction to `Lejepa.Gaussian`
(`hermiteMulti α z = hermiteProd ⇑α z` holds by `rfl`: `Lejepa.Hermite.hermiteR` and
`Lejepa.Gaussian.hermiteReal` have the same body).

It also proves integrability under `Measure.pi (fun _ => gaussianReal 0 1)` of a polynomial
(one coordinate, from the density form of `gaussianReal 0 1`), of `hermiteMulti α`, of
`hermiteMulti α * hermiteMulti β` and of each component of `encoderEval c` (by
`Integrable.fintype_prod` and `integrable_finsetSum`), `E He_α = [α = 0]`
(`integral_hermiteMulti`, orthogonality against `He_0 = 1`), and that the model's `mean` is the
Gaussian mean of the evaluated encoder (`integral_encoderEval`: the integral of the finite sum
`∑_α c i α He_α` is the sum of the integrals), and that `cov c i k + mean c i * mean c k` is
`E[h_i h_k]` (`integral_encoderEval_mul`: expand the product into a double sum, integrate
termwise, apply orthogonality, split off `α = 0`).

`Lejepa.GaussianIdent` goes on from here: `corr`, `alignLoss` and `recoveryError` as integrals
(the lag moment under the OU pair), and Theorems 4.1 and 4.3 restated with integral hypotheses.
This module is kept apart from `Lejepa.Gaussian`
so that a problem here cannot affect that module.
-/

namespace Lejepa.GaussianBridge

open MeasureTheory ProbabilityTheory Lejepa.Gaussian

variable {n : ℕ}

theorem hermiteR_eq_hermiteReal (k : ℕ) : Lejepa.Hermite.hermiteR k = hermiteReal k := rfl

theorem hermiteMulti_eq_hermiteProd (α : Fin n →₀ ℕ) (z : Fin n → ℝ) :
    Lejepa.Hermite.hermiteMulti α z = hermiteProd (⇑α) z := rfl

/-- **Orthogonality of the coefficient model's Hermite products under `N(0, Iₙ)`**: the formula
`E[He_α He_β] = [α = β] α!` that `Lejepa.Hermite` uses as a definition, proved for
`hermiteMulti` and `mfact`. -/
theorem integral_hermiteMulti_mul (α β : Fin n →₀ ℕ) :
    ∫ z, Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      if α = β then Lejepa.Hermite.mfact β else 0 := by
  -- `integral_hermiteProd_mul` at `⇑α`, `⇑β` as a term: its left side is this goal's with
  -- `hermiteMulti` unfolded to `hermiteProd` (`hermiteMulti_eq_hermiteProd` is `rfl`), compared by
  -- `Eq.trans` at default transparency; nothing is rewritten under the integral
  refine (integral_hermiteProd_mul (⇑α) (⇑β)).trans ?_
  by_cases h : α = β
  · subst h
    rw [if_pos rfl, if_pos rfl]
    -- `∏ j, ((α j)! : ℝ) = mfact α` by unfolding `mfact` (a no-op if `rw` already closed it)
    all_goals rfl
  · rw [if_neg (fun h' : (⇑α : Fin n → ℕ) = ⇑β => h (DFunLike.ext' h')), if_neg h]

/-- **Mehler's cross-moments for the coefficient model's Hermite products**: for `σ² = 1 - ρ²`
and the OU pair `z' = ρ z + σ η` (`z, η` independent, both `N(0, Iₙ)`),
`E[He_α(z) He_β(z')] = [α = β] α! ρ^|α|`, the formula behind `Lejepa.Hermite.corr`. -/
theorem integral_integral_hermiteMulti_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (α β : Fin n →₀ ℕ) :
    ∫ z, (∫ η, Lejepa.Hermite.hermiteMulti α z *
        Lejepa.Hermite.hermiteMulti β (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      if α = β then Lejepa.Hermite.mfact β * ρ ^ Lejepa.Hermite.deg β else 0 := by
  -- as in `integral_hermiteMulti_mul`: the `Gaussian` lemma as a term, joined by `Eq.trans`
  refine (integral_integral_hermiteProd_ou hσ (⇑α) (⇑β)).trans ?_
  by_cases h : α = β
  · subst h
    rw [if_pos rfl, if_pos rfl]
    -- unfolds `mfact` and `deg` (a no-op if `rw` already closed the goal)
    all_goals rfl
  · rw [if_neg (fun h' : (⇑α : Fin n → ℕ) = ⇑β => h (DFunLike.ext' h')), if_neg h]

/-! ## Integrability and the mean of the evaluated encoder -/

/-- A polynomial is integrable under `gaussianReal 0 1`: by `gaussianReal_of_var_ne_zero` the
measure has density `gaussianPDF 0 1`, and `φ · p` is Lebesgue integrable
(`Lejepa.Gaussian.integrable_pdf_mul_eval`). -/
theorem integrable_eval_gaussianReal (p : Polynomial ℝ) :
    Integrable (fun x => p.eval x) (gaussianReal 0 1) := by
  have hv : gaussianReal 0 1 = (volume : Measure ℝ).withDensity (gaussianPDF 0 1) :=
    gaussianReal_of_var_ne_zero 0 (one_ne_zero : (1 : NNReal) ≠ 0)
  have hx : ∀ x : ℝ, gaussianPDFReal 0 1 x * p.eval x =
      (gaussianPDF 0 1 x).toReal • p.eval x := by
    intro x
    rw [toReal_gaussianPDF]
    -- `•` on `ℝ` is `*` at default transparency (a no-op if `rw` already closed the goal)
    all_goals rfl
  rw [hv]
  exact (integrable_withDensity_iff_integrable_smul' (μ := (volume : Measure ℝ))
    (g := fun x => p.eval x) (measurable_gaussianPDF 0 1)
    (ae_of_all _ fun _ => gaussianPDF_lt_top)).mpr
    ((integrable_pdf_mul_eval p).congr (ae_of_all _ hx))

/-- `He_α` is integrable under `N(0, Iₙ)` (a product of one-coordinate polynomials,
`Integrable.fintype_prod`). -/
theorem integrable_hermiteMulti (α : Fin n →₀ ℕ) :
    Integrable (fun z => Lejepa.Hermite.hermiteMulti α z)
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Integrable.fintype_prod (μ := fun _ : Fin n => gaussianReal 0 1)
    (f := fun j (x : ℝ) => Polynomial.eval x (Lejepa.Hermite.hermiteR (α j)))
    (fun j => integrable_eval_gaussianReal (Lejepa.Hermite.hermiteR (α j)))

/-- `He_α He_β` as one product over coordinates: `∏_j (He_{α j} He_{β j})(z j)`. -/
theorem prod_eval_mul_eq_hermiteMulti_mul (α β : Fin n →₀ ℕ) (z : Fin n → ℝ) :
    ∏ j, Polynomial.eval (z j) (Lejepa.Hermite.hermiteR (α j) * Lejepa.Hermite.hermiteR (β j)) =
      Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z := by
  calc ∏ j, Polynomial.eval (z j)
        (Lejepa.Hermite.hermiteR (α j) * Lejepa.Hermite.hermiteR (β j))
      = ∏ j, Polynomial.eval (z j) (Lejepa.Hermite.hermiteR (α j)) *
          Polynomial.eval (z j) (Lejepa.Hermite.hermiteR (β j)) :=
        Finset.prod_congr rfl fun j _ => Polynomial.eval_mul
    _ = (∏ j, Polynomial.eval (z j) (Lejepa.Hermite.hermiteR (α j))) *
          ∏ j, Polynomial.eval (z j) (Lejepa.Hermite.hermiteR (β j)) :=
        Finset.prod_mul_distrib
    _ = Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z := rfl

/-- `He_α He_β` is integrable under `N(0, Iₙ)`. -/
theorem integrable_hermiteMulti_mul (α β : Fin n →₀ ℕ) :
    Integrable (fun z => Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z)
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) := by
  have h : Integrable (fun z : Fin n → ℝ => ∏ j, Polynomial.eval (z j)
      (Lejepa.Hermite.hermiteR (α j) * Lejepa.Hermite.hermiteR (β j)))
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
    Integrable.fintype_prod (μ := fun _ : Fin n => gaussianReal 0 1)
      (f := fun j (x : ℝ) =>
        Polynomial.eval x (Lejepa.Hermite.hermiteR (α j) * Lejepa.Hermite.hermiteR (β j)))
      (fun j => integrable_eval_gaussianReal
        (Lejepa.Hermite.hermiteR (α j) * Lejepa.Hermite.hermiteR (β j)))
  exact h.congr (ae_of_all _ (prod_eval_mul_eq_hermiteMulti_mul α β))

/-- `He_0 = 1`. -/
theorem hermiteMulti_zero (z : Fin n → ℝ) : Lejepa.Hermite.hermiteMulti 0 z = 1 := by
  have h : ∀ j : Fin n,
      Polynomial.eval (z j) (Lejepa.Hermite.hermiteR ((0 : Fin n →₀ ℕ) j)) = 1 := by
    intro j
    rw [Finsupp.zero_apply]
    exact Lejepa.Hermite.eval_hermiteR_zero (z j)
  exact Finset.prod_eq_one fun j _ => h j

set_option backward.isDefEq.respectTransparency false in
/-- `0! = 1` for the zero multi-index. -/
theorem mfact_zero : Lejepa.Hermite.mfact (0 : Fin n →₀ ℕ) = 1 := by
  have h : ∀ j : Fin n, (((0 : Fin n →₀ ℕ) j).factorial : ℝ) = 1 := by
    intro j
    have h0 : (0 : Fin n →₀ ℕ) j = 0 := Finsupp.zero_apply
    rw [h0, Nat.factorial_zero, Nat.cast_one]
  exact Finset.prod_eq_one fun j _ => h j

/-- `E[He_α(z)] = [α = 0]` under `N(0, Iₙ)` (orthogonality against `He_0 = 1`). -/
theorem integral_hermiteMulti (α : Fin n →₀ ℕ) :
    ∫ z, Lejepa.Hermite.hermiteMulti α z ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      if α = 0 then 1 else 0 := by
  have hx : ∀ z : Fin n → ℝ, Lejepa.Hermite.hermiteMulti α z =
      Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti 0 z := by
    intro z
    rw [hermiteMulti_zero, mul_one]
  calc ∫ z, Lejepa.Hermite.hermiteMulti α z ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti 0 z
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_congr_ae (ae_of_all _ hx)
    _ = if α = 0 then Lejepa.Hermite.mfact (0 : Fin n →₀ ℕ) else 0 := integral_hermiteMulti_mul α 0
    _ = if α = 0 then 1 else 0 := by rw [mfact_zero]

/-- Each component of the evaluated encoder is integrable under `N(0, Iₙ)`. -/
theorem integrable_encoderEval (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    Integrable (fun z => Lejepa.Hermite.encoderEval c z i)
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  integrable_finsetSum (c i).support
    (f := fun α z => c i α * Lejepa.Hermite.hermiteMulti α z)
    (fun α _ => (integrable_hermiteMulti α).const_mul (c i α))

/-- `∑_{α ∈ s} c_α [α = 0] = c_0` when `c_α = 0` off `s`. -/
theorem sum_mul_ite_zero (c : (Fin n →₀ ℕ) →₀ ℝ) :
    ∑ α ∈ c.support, c α * (if α = 0 then (1 : ℝ) else 0) = c 0 := by
  calc ∑ α ∈ c.support, c α * (if α = 0 then (1 : ℝ) else 0)
      = ∑ α ∈ c.support, (if α = 0 then c α else 0) :=
        Finset.sum_congr rfl fun α _ => by
          rw [mul_ite, mul_one, mul_zero]
          all_goals rfl
    _ = if (0 : Fin n →₀ ℕ) ∈ c.support then c 0 else 0 :=
        Finset.sum_ite_eq' c.support 0 (fun α => c α)
    _ = c 0 := by
        by_cases h0 : (0 : Fin n →₀ ℕ) ∈ c.support
        · rw [if_pos h0]
        · rw [if_neg h0]
          exact (Finsupp.notMem_support_iff.mp h0).symm

/-- **The mean of the coefficient model is the Gaussian mean of the evaluated encoder**:
`E h_i(z) = mean c i` (`= c i 0`) for `z ~ N(0, Iₙ)`, i.e.
`∫ encoderEval c z i dγⁿ(z) = Lejepa.Hermite.mean c i`. Proof: the integral of the finite sum
`∑_α c i α He_α` is the sum of the integrals, and `E He_α = [α = 0]`. -/
theorem integral_encoderEval (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    ∫ z, Lejepa.Hermite.encoderEval c z i ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      Lejepa.Hermite.mean c i := by
  calc ∫ z, Lejepa.Hermite.encoderEval c z i ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, ∑ α ∈ (c i).support, c i α * Lejepa.Hermite.hermiteMulti α z
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) := rfl
    _ = ∑ α ∈ (c i).support, ∫ z, c i α * Lejepa.Hermite.hermiteMulti α z
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_finsetSum (c i).support
          (f := fun α z => c i α * Lejepa.Hermite.hermiteMulti α z)
          (fun α _ => (integrable_hermiteMulti α).const_mul (c i α))
    _ = ∑ α ∈ (c i).support, c i α * (if α = 0 then (1 : ℝ) else 0) :=
        Finset.sum_congr rfl fun α _ => by
          -- `integral_const_mul` (stated for `[RCLike L]`) as an equation with this file's
          -- instances, so that both rewrites below act on syntactically equal terms
          have h1 : ∫ z, c i α * Lejepa.Hermite.hermiteMulti α z
              ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
              c i α * ∫ z, Lejepa.Hermite.hermiteMulti α z
                ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
            integral_const_mul (c i α) (fun z => Lejepa.Hermite.hermiteMulti α z)
          rw [h1, integral_hermiteMulti]
    _ = c i 0 := sum_mul_ite_zero (c i)
    _ = Lejepa.Hermite.mean c i := rfl

/-! ## The second moments of the evaluated encoder -/

/-- The product of two components as a double sum:
`h_i h_k = ∑_α ∑_β (c i α c k β) (He_α He_β)`. -/
theorem encoderEval_mul_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (z : Fin n → ℝ) (i k : Fin n) :
    Lejepa.Hermite.encoderEval c z i * Lejepa.Hermite.encoderEval c z k =
      ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
        c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z) := by
  calc Lejepa.Hermite.encoderEval c z i * Lejepa.Hermite.encoderEval c z k
      = (∑ α ∈ (c i).support, c i α * Lejepa.Hermite.hermiteMulti α z) *
          ∑ β ∈ (c k).support, c k β * Lejepa.Hermite.hermiteMulti β z := rfl
    _ = ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
          c i α * Lejepa.Hermite.hermiteMulti α z * (c k β * Lejepa.Hermite.hermiteMulti β z) :=
        Finset.sum_mul_sum (c i).support (c k).support
          (fun α => c i α * Lejepa.Hermite.hermiteMulti α z)
          (fun β => c k β * Lejepa.Hermite.hermiteMulti β z)
    _ = ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
          c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z) :=
        Finset.sum_congr rfl fun α _ => Finset.sum_congr rfl fun β _ =>
          mul_mul_mul_comm (c i α) (Lejepa.Hermite.hermiteMulti α z) (c k β)
            (Lejepa.Hermite.hermiteMulti β z)

/-- For fixed `α`, the inner sum `z ↦ ∑_β (c i α c k β) (He_α He_β)(z)` is integrable. -/
theorem integrable_sum_hermiteMulti_mul (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n)
    (α : Fin n →₀ ℕ) :
    Integrable (fun z => ∑ β ∈ (c k).support,
        c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z))
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  integrable_finsetSum (c k).support
    (f := fun β z =>
      c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z))
    (fun β _ => (integrable_hermiteMulti_mul α β).const_mul (c i α * c k β))

/-- The inner sum of the orthogonality expansion:
`∑_{β ∈ supp b} (a_α b_β) [α = β] β! = a_α b_α α!` (`b_α = 0` off its support). -/
theorem sum_mul_ite_mfact (a b : (Fin n →₀ ℕ) →₀ ℝ) (α : Fin n →₀ ℕ) :
    ∑ β ∈ b.support, a α * b β * (if α = β then Lejepa.Hermite.mfact β else 0) =
      a α * b α * Lejepa.Hermite.mfact α := by
  calc ∑ β ∈ b.support, a α * b β * (if α = β then Lejepa.Hermite.mfact β else 0)
      = ∑ β ∈ b.support, (if α = β then a α * b β * Lejepa.Hermite.mfact β else 0) :=
        Finset.sum_congr rfl fun β _ => by
          rw [mul_ite, mul_zero]
          all_goals rfl
    _ = if α ∈ b.support then a α * b α * Lejepa.Hermite.mfact α else 0 :=
        Finset.sum_ite_eq b.support α (fun β => a α * b β * Lejepa.Hermite.mfact β)
    _ = a α * b α * Lejepa.Hermite.mfact α := by
        by_cases hα : α ∈ b.support
        · rw [if_pos hα]
        · rw [if_neg hα, Finsupp.notMem_support_iff.mp hα, mul_zero, zero_mul]
          all_goals rfl

/-- Splitting off the zero multi-index: `∑_{α ∈ supp a} a_α b_α α!` is the sum over the
nonzero `α` in `supp a ∪ supp b` plus `a_0 b_0`. -/
theorem sum_mul_mfact_eq (a b : (Fin n →₀ ℕ) →₀ ℝ) :
    ∑ α ∈ a.support, a α * b α * Lejepa.Hermite.mfact α =
      (∑ α ∈ (a.support ∪ b.support).filter (fun α => α ≠ 0),
        a α * b α * Lejepa.Hermite.mfact α) + a 0 * b 0 := by
  have hsplit : ∀ α : Fin n →₀ ℕ, a α * b α * Lejepa.Hermite.mfact α =
      (if α ≠ 0 then a α * b α * Lejepa.Hermite.mfact α else 0) +
        (if α = 0 then a α * b α * Lejepa.Hermite.mfact α else 0) := by
    intro α
    by_cases h : α = 0
    · rw [if_neg (show ¬(α ≠ 0) from fun h' => h' h), if_pos h, zero_add]
    · rw [if_pos (show α ≠ 0 from h), if_neg h, add_zero]
  have hzero : (if (0 : Fin n →₀ ℕ) ∈ a.support ∪ b.support then
      a 0 * b 0 * Lejepa.Hermite.mfact (0 : Fin n →₀ ℕ) else 0) = a 0 * b 0 := by
    by_cases h0 : (0 : Fin n →₀ ℕ) ∈ a.support ∪ b.support
    · rw [if_pos h0, mfact_zero, mul_one]
    · have ha : (0 : Fin n →₀ ℕ) ∉ a.support := fun h => h0 (Finset.mem_union_left b.support h)
      rw [if_neg h0, Finsupp.notMem_support_iff.mp ha, zero_mul]
      all_goals rfl
  have hfilter : ∑ α ∈ a.support ∪ b.support,
      (if α ≠ 0 then a α * b α * Lejepa.Hermite.mfact α else 0) =
        ∑ α ∈ (a.support ∪ b.support).filter (fun α => α ≠ 0),
          a α * b α * Lejepa.Hermite.mfact α :=
    (Finset.sum_filter (fun α => α ≠ 0) (fun α => a α * b α * Lejepa.Hermite.mfact α)).symm
  have hite : ∑ α ∈ a.support ∪ b.support,
      (if α = 0 then a α * b α * Lejepa.Hermite.mfact α else 0) =
        if (0 : Fin n →₀ ℕ) ∈ a.support ∪ b.support then
          a 0 * b 0 * Lejepa.Hermite.mfact (0 : Fin n →₀ ℕ) else 0 :=
    Finset.sum_ite_eq' (a.support ∪ b.support) 0 (fun α => a α * b α * Lejepa.Hermite.mfact α)
  calc ∑ α ∈ a.support, a α * b α * Lejepa.Hermite.mfact α
      = ∑ α ∈ a.support ∪ b.support, a α * b α * Lejepa.Hermite.mfact α :=
        Finset.sum_subset Finset.subset_union_left fun α _ hα => by
          rw [Finsupp.notMem_support_iff.mp hα, zero_mul, zero_mul]
          all_goals rfl
    _ = ∑ α ∈ a.support ∪ b.support,
          ((if α ≠ 0 then a α * b α * Lejepa.Hermite.mfact α else 0) +
            (if α = 0 then a α * b α * Lejepa.Hermite.mfact α else 0)) :=
        Finset.sum_congr rfl fun α _ => hsplit α
    _ = (∑ α ∈ a.support ∪ b.support,
          (if α ≠ 0 then a α * b α * Lejepa.Hermite.mfact α else 0)) +
          ∑ α ∈ a.support ∪ b.support,
            (if α = 0 then a α * b α * Lejepa.Hermite.mfact α else 0) :=
        Finset.sum_add_distrib
    _ = (∑ α ∈ (a.support ∪ b.support).filter (fun α => α ≠ 0),
          a α * b α * Lejepa.Hermite.mfact α) +
          (if (0 : Fin n →₀ ℕ) ∈ a.support ∪ b.support then
            a 0 * b 0 * Lejepa.Hermite.mfact (0 : Fin n →₀ ℕ) else 0) := by
        rw [hfilter, hite]
    _ = (∑ α ∈ (a.support ∪ b.support).filter (fun α => α ≠ 0),
          a α * b α * Lejepa.Hermite.mfact α) + a 0 * b 0 := by rw [hzero]

/-- **The second moments of the coefficient model are Gaussian integrals**: for `z ~ N(0, Iₙ)`,
`E[h_i(z) h_k(z)] = Cov_ik + E h_i E h_k`, i.e.
`∫ encoderEval c z i * encoderEval c z k dγⁿ(z) = cov c i k + mean c i * mean c k`
(`cov` sums over the nonzero multi-indices only). Proof: expand the product into the double sum
`∑_α ∑_β c i α c k β He_α He_β`, integrate termwise, apply orthogonality
(`integral_hermiteMulti_mul`), and split off `α = 0`. With `i = k` (`variance_eq_cov_self`)
this is `E[h_i²] = variance c i + (mean c i)²`. -/
theorem integral_encoderEval_mul (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    ∫ z, Lejepa.Hermite.encoderEval c z i * Lejepa.Hermite.encoderEval c z k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      Lejepa.Hermite.cov c i k + Lejepa.Hermite.mean c i * Lejepa.Hermite.mean c k := by
  calc ∫ z, Lejepa.Hermite.encoderEval c z i * Lejepa.Hermite.encoderEval c z k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, (∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
          c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_congr_ae (ae_of_all _ fun z => encoderEval_mul_eq c z i k)
    _ = ∑ α ∈ (c i).support, ∫ z, (∑ β ∈ (c k).support,
          c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_finsetSum (c i).support
          (f := fun α z => ∑ β ∈ (c k).support,
            c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z))
          (fun α _ => integrable_sum_hermiteMulti_mul c i k α)
    _ = ∑ α ∈ (c i).support, ∑ β ∈ (c k).support, ∫ z,
          c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z)
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        Finset.sum_congr rfl fun α _ => integral_finsetSum (c k).support
          (f := fun β z =>
            c i α * c k β * (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z))
          (fun β _ => (integrable_hermiteMulti_mul α β).const_mul (c i α * c k β))
    _ = ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
          c i α * c k β * (if α = β then Lejepa.Hermite.mfact β else 0) :=
        Finset.sum_congr rfl fun α _ => Finset.sum_congr rfl fun β _ => by
          -- as in `integral_encoderEval`: `integral_const_mul` with this file's instances
          have h1 : ∫ z, c i α * c k β *
              (Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z)
              ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
              c i α * c k β * ∫ z, Lejepa.Hermite.hermiteMulti α z *
                Lejepa.Hermite.hermiteMulti β z
                ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
            integral_const_mul (c i α * c k β)
              (fun z => Lejepa.Hermite.hermiteMulti α z * Lejepa.Hermite.hermiteMulti β z)
          rw [h1, integral_hermiteMulti_mul]
    _ = ∑ α ∈ (c i).support, c i α * c k α * Lejepa.Hermite.mfact α :=
        Finset.sum_congr rfl fun α _ => sum_mul_ite_mfact (c i) (c k) α
    _ = (∑ α ∈ ((c i).support ∪ (c k).support).filter (fun α => α ≠ 0),
          c i α * c k α * Lejepa.Hermite.mfact α) + c i 0 * c k 0 :=
        sum_mul_mfact_eq (c i) (c k)
    _ = Lejepa.Hermite.cov c i k + Lejepa.Hermite.mean c i * Lejepa.Hermite.mean c k := by
        rw [Lejepa.Hermite.cov_apply]
        -- unfolds `covSupport` and `mean` (a no-op if `rw` already closed the goal)
        all_goals rfl

/-- `E[h_i(z)²] = variance c i + (mean c i)²` under `N(0, Iₙ)`: `integral_encoderEval_mul` with
`k = i` and `Lejepa.Hermite.variance_eq_cov_self`. -/
theorem integral_encoderEval_mul_self (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    ∫ z, Lejepa.Hermite.encoderEval c z i * Lejepa.Hermite.encoderEval c z i
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      Lejepa.Hermite.variance c i + Lejepa.Hermite.mean c i * Lejepa.Hermite.mean c i := by
  rw [integral_encoderEval_mul c i i, Lejepa.Hermite.variance_eq_cov_self c i]

end Lejepa.GaussianBridge
