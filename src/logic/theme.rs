//! Light and dark themes: the system's by default, or the user's choice, and what the toggle
//! picks next. Kept and applied to the page by `state::chrome`.

/// Light, dark, or what the system says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    /// The name it is kept and set on the page by (`data-theme`); `None` for the system's.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }

    /// The theme a kept name names; the system's for anything else.
    pub fn named(name: Option<&str>) -> Theme {
        match name {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// Whether it shows dark colours, the system's being dark or not.
    pub fn is_dark(self, system_is_dark: bool) -> bool {
        match self {
            Theme::Dark => true,
            Theme::Light => false,
            Theme::System => system_is_dark,
        }
    }

    /// The theme after a click of the toggle, which always shows the other colours. From following
    /// the system it picks the other theme; from a theme picked, it goes back to following the
    /// system when the system's theme is the other one, so the choice can be undone.
    pub fn next(self, system_is_dark: bool) -> Theme {
        let other_is_dark = !self.is_dark(system_is_dark);
        if self != Theme::System && other_is_dark == system_is_dark {
            // The other theme is the system's: follow the system again.
            Theme::System
        } else if other_is_dark {
            Theme::Dark
        } else {
            Theme::Light
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toggle_shows_the_other_theme_and_comes_back_to_the_system() {
        for system_is_dark in [false, true] {
            let mut theme = Theme::System;
            let mut shown = Vec::new();
            for _ in 0..4 {
                theme = theme.next(system_is_dark);
                shown.push(theme);
            }
            let other = if system_is_dark { Theme::Light } else { Theme::Dark };
            assert_eq!(shown, [other, Theme::System, other, Theme::System], "system dark: {system_is_dark}");
        }
        // A theme picked as the system's own (the system changed since) goes to the other one.
        assert_eq!(Theme::Dark.next(true), Theme::Light);
        assert_eq!(Theme::Light.next(false), Theme::Dark);
    }

    #[test]
    fn a_theme_is_kept_by_its_name() {
        for theme in [Theme::System, Theme::Light, Theme::Dark] {
            assert_eq!(Theme::named(theme.name()), theme);
        }
        assert_eq!(Theme::named(Some("sepia")), Theme::System);
    }
}
