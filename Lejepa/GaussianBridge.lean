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

Not here (issue #11 step 7, see `docs/lean-reviews/gaussian-notes.md`): expanding `encoderEval`
under the integral to identify `mean`, `variance`, `corr`, `cov`, `alignLoss` with integrals, and
restating Theorems 4.1 and 4.3 with integral hypotheses. It is kept apart from `Lejepa.Gaussian`
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
  simp only [hermiteMulti_eq_hermiteProd]
  rw [integral_hermiteProd_mul (⇑α) (⇑β)]
  by_cases h : α = β
  · subst h
    rw [if_pos rfl, if_pos rfl]
    rfl
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
  simp only [hermiteMulti_eq_hermiteProd]
  rw [integral_integral_hermiteProd_ou hσ (⇑α) (⇑β)]
  by_cases h : α = β
  · subst h
    rw [if_pos rfl, if_pos rfl]
    rfl
  · rw [if_neg (fun h' : (⇑α : Fin n → ℕ) = ⇑β => h (DFunLike.ext' h')), if_neg h]

end Lejepa.GaussianBridge
